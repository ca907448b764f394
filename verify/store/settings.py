"""The base of every experiment's settings: a frozen dataclass per experiment, at three scales.

An experiment receives one instance of its settings class and reads nothing else; the cache key
(:func:`sgmcmc_verify.store.cache.settings_key`) is built from that instance (every field but ``scale``)
and from :meth:`ScaledSettings.inputs` (the identity of external inputs such as user data files),
so no hand-kept list of fields can drift from what the experiment reads.

Scales: ``smoke`` (seconds; tests and CI), ``default`` (what ``make figures`` runs), ``paper`` (the
published settings, where they differ). A subclass gives its defaults as field defaults (the
``default`` scale) and the other scales as overrides::

    @dataclass(frozen=True)
    class Fig1Settings(ScaledSettings):
        realizations: int = 10_000
        SCALE_OVERRIDES: ClassVar[dict] = {"smoke": {"realizations": 1_000}}

    Fig1Settings.at("smoke").realizations   # 1000
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Mapping

__all__ = ["SCALES", "ScaledSettings", "check_scale"]

#: The three scales of every experiment.
SCALES = ("smoke", "default", "paper")


def check_scale(scale: str) -> str:
    """``scale`` if it is one of :data:`SCALES`, else ``ValueError`` naming them."""
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {', '.join(SCALES)}, got {scale!r}")
    return scale


@dataclass(frozen=True)
class ScaledSettings:
    """Settings of one experiment at one scale (frozen; every field has a default).

    Attributes
    ----------
    scale : str
        The scale the instance was made for (recorded in outputs; not part of the cache key, so
        scales with identical values share stored results).
    SCALE_OVERRIDES : ClassVar mapping scale -> {field: value}
        How ``smoke`` and ``paper`` differ from the field defaults.
    """

    scale: str = "default"
    SCALE_OVERRIDES: ClassVar[Mapping[str, Mapping[str, Any]]] = {}

    @classmethod
    def at(cls, scale: str):
        """The settings at ``scale``.

        Raises
        ------
        ValueError
            Unknown scale.
        """
        check_scale(scale)
        return cls(scale=scale, **cls.SCALE_OVERRIDES.get(scale, {}))

    def as_dict(self) -> dict:
        """Every field, ``scale`` included."""
        return asdict(self)

    def key_fields(self) -> dict:
        """The fields that enter the cache key: all but ``scale``."""
        d = asdict(self)
        d.pop("scale")
        return d

    def inputs(self) -> dict:
        """Identities of external inputs (e.g. user data files) that enter the cache key; none by default."""
        return {}
