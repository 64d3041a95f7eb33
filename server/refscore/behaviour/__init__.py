"""Behaviour: the candidate run beside the reference on inputs made from the reference, in a
sandbox, and how often they agree (``run_behaviour``). Below ``scoring`` like ``metrics``;
``sandbox`` is the only module that starts untrusted processes."""

from .result import BehaviourResult, Disagreement, FunctionAgreement
from .run import run_behaviour, supported_languages
from .settings import BehaviourSettings

__all__ = ["BehaviourResult", "BehaviourSettings", "Disagreement", "FunctionAgreement", "run_behaviour",
           "supported_languages"]
