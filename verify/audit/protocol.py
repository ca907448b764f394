"""The sampler protocol the audit battery asks of a factory, in one place, and its enforcement.

A **factory** is any callable ``factory(target, step_size, **params) -> sampler``. The battery calls it
with its own targets (Gaussians, a 2-D mixture: objects with ``n``, ``dim``, ``full_gradient``,
``data_gradients``, ``potential``; see :mod:`sgmcmc_verify.targets`) and step sizes, and with
``params`` (``--param KEY=VALUE``). The sampler it returns follows :class:`AuditedSampler`:

=====================================  ============================================================
what                                   required
=====================================  ============================================================
``sampler.target``                     the target it was built on (``target.n`` counts data passes)
``sampler.init(position)``             a state for ``position`` of shape ``(chains, d)``
``sampler.init(position, momentum)``   only when the state has a ``momentum``: the battery then starts
                                       it at ``N(0, I)`` (unit mass)
``sampler.step(state, rng)``           ``(new_state, info)``: all chains one step, randomness only from
                                       ``rng`` (a ``numpy.random.Generator``)
``state.position``                     a finite float array ``(chains, d)``, same shape as given
``info.evaluations``                   per-datum gradient evaluations per chain in this step (int >= 0);
                                       ``info.info``: a dict of diagnostics (may be empty)
=====================================  ============================================================

:class:`sgmcmc_verify.integrators.StepInfo` is the ready-made ``info``. Optional keyword arguments of the
factory enable checks (:data:`OPTIONAL_KEYWORDS`): a check that cannot run without one reports ``n/a``
and names the keyword.

Every sampler the battery builds is wrapped in :class:`CheckedSampler`, which validates each ``init``
and ``step`` result: a violation raises :class:`ProtocolError` (one line naming the factory and what is
wrong); a non-finite position raises :class:`~sgmcmc_verify.errors.DivergenceError` (a finding of the check
in which it happens). :func:`probe` runs the protocol once before any check (one build, init, two steps),
so that a sampler that does not follow it fails in a second with that one line.
"""
from __future__ import annotations

import numbers
from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np

from ..errors import DivergenceError
from ..runner import run_chains

__all__ = ["AuditedSampler", "SamplerState", "StepInfoLike", "ProtocolError", "CheckedSampler", "OPTIONAL_KEYWORDS",
           "factory_name", "probe", "unwrap"]

#: Optional factory keywords → (the check they enable, what the check does with them).
OPTIONAL_KEYWORDS = {
    "batch_size": ("sg_sensitivity", "check 2 varies the minibatch size b (1 … n) at a fixed h"),
}


@runtime_checkable
class SamplerState(Protocol):
    """What the battery reads of a state: ``position`` ``(chains, d)`` (finite floats). A state with a
    ``momentum`` attribute is started with ``momentum ~ N(0, I)`` (``init(position, momentum)``)."""

    position: np.ndarray


@runtime_checkable
class StepInfoLike(Protocol):
    """``evaluations``: per-datum gradient evaluations per chain in the step (int >= 0); ``info``: dict of
    diagnostics (may be empty). :class:`sgmcmc_verify.integrators.StepInfo` is one."""

    evaluations: int
    info: dict


@runtime_checkable
class AuditedSampler(Protocol):
    """The sampler protocol of the audit (see the module docstring for the table).

    Attributes
    ----------
    target : object
        The target the factory was given (``n``: number of data terms; ``dim``: d).

    Methods
    -------
    init(position, momentum=None) -> SamplerState
        ``position`` ``(chains, d)`` float64; ``momentum`` only for states with a ``momentum``.
    step(state, rng) -> (SamplerState, StepInfoLike)
        One step of every chain, randomness only from ``rng``.
    """

    target: Any

    def init(self, position: np.ndarray, momentum: np.ndarray | None = None) -> SamplerState:
        ...

    def step(self, state: Any, rng: np.random.Generator) -> tuple[SamplerState, StepInfoLike]:
        ...


class ProtocolError(ValueError):
    """A factory or the sampler it built does not follow :class:`AuditedSampler` (one line, names the factory)."""


def factory_name(factory) -> str:
    """``module:qualname`` of a factory (what error messages and ``summary.json`` call it)."""
    if isinstance(factory, str):
        return factory
    return f"{getattr(factory, '__module__', '?')}:{getattr(factory, '__qualname__', repr(factory))}"


def unwrap(sampler):
    """The sampler inside a :class:`CheckedSampler` (itself otherwise)."""
    return sampler.wrapped if isinstance(sampler, CheckedSampler) else sampler


def _shape(x):
    return getattr(x, "shape", None)


class CheckedSampler:
    """A sampler whose every ``init`` / ``step`` result is checked against the protocol.

    Attribute access other than ``init``/``step`` goes to the wrapped sampler (``wrapped``).

    Raises
    ------
    ProtocolError
        ``init`` or ``step`` returns something else than the protocol says (names the factory).
    sgmcmc_verify.errors.DivergenceError
        A non-finite position after a step (names the sampler, the step and its settings).
    """

    def __init__(self, sampler, factory: str):
        self.wrapped = sampler
        self.factory = factory
        self._steps = 0
        self._delegate = sampler.step      # one call per step() of this wrapper: the runner keeps the loop

    def __getattr__(self, key):
        if key == "wrapped":
            raise AttributeError(key)
        return getattr(self.wrapped, key)

    def _fail(self, what: str):
        raise ProtocolError(f"factory {self.factory!r}: {what} (see sgmcmc_verify.audit.protocol)")

    def _check_state(self, st, shape, where: str):
        pos = getattr(st, "position", None)
        if pos is None:
            self._fail(f"{where} returned a {type(st).__name__} without .position")
        if _shape(pos) != shape:
            self._fail(f"{where} returned a position of shape {_shape(pos)}, expected {shape} (chains, d)")
        if not np.issubdtype(np.asarray(pos).dtype, np.floating):
            self._fail(f"{where} returned a position of dtype {np.asarray(pos).dtype}, expected floats")

    def init(self, position, momentum=None):
        st = self.wrapped.init(position) if momentum is None else self.wrapped.init(position, momentum)
        self._check_state(st, np.shape(position), "init")
        return st

    def step(self, state, rng):
        out = self._delegate(state, rng)
        if not isinstance(out, tuple) or len(out) != 2:
            self._fail(f"step returned {type(out).__name__}"
                       f"{'' if not isinstance(out, tuple) else f' of length {len(out)}'}, expected (state, info)")
        st, info = out
        self._check_state(st, state.position.shape, "step")
        ev = getattr(info, "evaluations", None)
        if (ev is None or isinstance(ev, bool) or not isinstance(ev, (numbers.Real, np.integer))
                or not np.isfinite(ev) or ev < 0):
            self._fail(f"step returned info {type(info).__name__} without .evaluations >= 0 "
                       "(use sgmcmc_verify.integrators.StepInfo(evaluations, {}))")
        if not isinstance(getattr(info, "info", None), dict):
            self._fail(f"step returned info {type(info).__name__} without an .info dict")
        self._steps += 1
        bad = ~np.all(np.isfinite(st.position), axis=1)
        if bad.any():
            settings = {}
            try:
                settings = dict(self.wrapped.settings())
            except Exception:  # noqa: BLE001 - settings() is optional in the protocol
                settings = {"step_size": getattr(self.wrapped, "step_size", "?")}
            raise DivergenceError(getattr(self.wrapped, "name", self.factory), self._steps - 1, settings, int(bad.sum()))
        return st, info


def build(factory: Callable, target, step_size: float, params: dict, name: str | None = None) -> CheckedSampler:
    """``factory(target, step_size, **params)`` wrapped in :class:`CheckedSampler`.

    Raises
    ------
    ProtocolError
        The factory does not accept these arguments, or the object lacks ``init``, ``step`` or ``target``.
    """
    name = name or factory_name(factory)
    try:
        s = factory(target, step_size, **params)
    except TypeError as e:
        if "argument" not in str(e):
            raise
        raise ProtocolError(f"factory {name!r}: cannot be called as factory(target, step_size, "
                            f"{', '.join(f'{k}=…' for k in params) or '**params'}): {e}") from e
    missing = [a for a in ("init", "step", "target") if not hasattr(s, a)]
    if missing:
        raise ProtocolError(f"factory {name!r} built a {type(s).__name__} without {', '.join(missing)}: "
                            "it must follow the sampler protocol (init, step, target)")
    return CheckedSampler(s, name)


def probe(factory: Callable, params: dict, target, step_size: float, *, name: str | None = None,
          chains: int = 3, steps: int = 2) -> None:
    """Build, ``init`` at the target's mean and take ``steps`` steps, validating every result.

    Raises
    ------
    ProtocolError
        The first violation (one line naming the factory).
    sgmcmc_verify.errors.DivergenceError
        Non-finite positions already in the probe (reported by the battery as a finding of every check).
    """
    s = build(factory, target, step_size, params, name)
    mean = np.asarray(getattr(target, "posterior_mean", np.zeros(target.dim)), dtype=float)
    pos = np.tile(mean, (chains, 1))
    rng = np.random.default_rng(0)
    st = s.init(pos)
    if hasattr(st, "momentum"):
        st = s.init(pos, rng.standard_normal(pos.shape))
    run_chains(s, st, rng, steps=steps)
