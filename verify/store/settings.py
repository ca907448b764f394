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

__all__ = ["SCALES", "ScaledSettings", "check_scale", "apply_overrides"]

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


def _coerce(name: str, current: Any, value: Any, exp_id: str) -> Any:
    """``value`` (a string from the command line, or a Python value) as the type of the field's ``current`` value."""
    import ast

    def bad(why):
        return ValueError(f"setting {name!r} of {exp_id}: {why} (its value at this scale is {current!r})")

    text = value if isinstance(value, str) else None
    if isinstance(current, bool):
        if text is not None:
            if text.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise bad(f"expected true or false, got {text!r}")
            return text.lower() in ("true", "1", "yes")
        if not isinstance(value, bool):
            raise bad(f"expected a bool, got {value!r}")
        return value
    if text is not None and not isinstance(current, str):
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            if current is not None:
                kind = {int: "an integer", float: "a number", tuple: "a tuple", list: "a list"}.get(
                    type(current), f"a {type(current).__name__}")
                raise bad(f"{text!r} does not read as {kind}") from None
            value = text
    if isinstance(current, str):
        if not isinstance(value, str):
            raise bad(f"expected a string, got {value!r}")
        return value
    if isinstance(current, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise bad(f"expected an integer, got {value!r}")
        return value
    if isinstance(current, float):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise bad(f"expected a number, got {value!r}")
        return float(value)
    if isinstance(current, (tuple, list)):
        if isinstance(value, (int, float, str)) and not isinstance(value, bool):
            value = (value,)
        if not isinstance(value, (tuple, list)):
            raise bad(f"expected a sequence such as (1, 2), got {value!r}")
        if current and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in current):
            if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value):
                raise bad(f"expected a sequence of numbers, got {value!r}")
            if all(isinstance(x, float) for x in current):
                value = [float(x) for x in value]
        return type(current)(value)
    if current is not None and not isinstance(value, type(current)):
        raise bad(f"expected a {type(current).__name__}, got {value!r}")
    return value


def apply_overrides(cfg: ScaledSettings, overrides: Mapping[str, Any], exp_id: str = "the experiment") -> ScaledSettings:
    """``cfg`` with some fields replaced (``sgmcmc-verify run --set KEY=VALUE`` / ``--seed``), checked field by field.

    Every changed value enters the cache key (:func:`sgmcmc_verify.store.cache.settings_key` reads the
    instance), so a run with a changed setting never reuses a result stored under another value; a value
    equal to the scale's own (after conversion to the field's type: ``--set seed=7`` on an ``int`` field
    is ``7``, ``1`` on a ``float`` field is ``1.0``) gives the same key and reuses it.

    Parameters
    ----------
    cfg : ScaledSettings
        The experiment's settings at a scale (``Settings.at(scale)``).
    overrides : mapping str -> str or value
        Field name -> new value. A string is read as the field's type: a bool from
        ``true/false/1/0/yes/no``, numbers and sequences as Python literals (``(0.01, 0.05)``), a
        string field as it is.
    exp_id : str
        Named in the error messages.

    Returns
    -------
    ScaledSettings
        A new frozen instance (``cfg`` itself when ``overrides`` is empty).

    Raises
    ------
    ValueError
        A key that is not a field of ``cfg`` (the message lists the fields) or ``scale``; a value that
        does not read as the field's type; a value the settings class itself refuses.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class S(ScaledSettings):
    ...     seed: int = 1
    ...     step: float = 0.1
    >>> apply_overrides(S.at("smoke"), {"seed": "7", "step": "1"})
    S(scale='smoke', seed=7, step=1.0)
    >>> apply_overrides(S.at("smoke"), {"sead": "7"}, "demo")
    Traceback (most recent call last):
    ...
    ValueError: demo has no setting 'sead'; its settings: seed, step
    """
    import dataclasses

    if not overrides:
        return cfg
    names = [f.name for f in dataclasses.fields(cfg) if f.name != "scale"]
    vals = {}
    for key, value in overrides.items():
        if key == "scale":
            raise ValueError("the scale is chosen with --scale, not as a setting")
        if key not in names:
            raise ValueError(f"{exp_id} has no setting {key!r}; its settings: {', '.join(names)}")
        vals[key] = _coerce(key, getattr(cfg, key), value, exp_id)
    try:
        return dataclasses.replace(cfg, **vals)
    except (ValueError, TypeError) as e:
        raise ValueError(f"{exp_id}: settings {', '.join(f'{k}={v!r}' for k, v in vals.items())} refused: {e}") from e
