"""What this interpreter can score: CodeBLEU always, CodeBERTScore once its runtime is installed."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass

#: The modules CodeBERTScore needs in the interpreter that runs the scoring daemon.
BERT_MODULES = ("torch", "transformers")
#: How a user installs them (``refscore setup``; in VS Code, RefScore: Set Up CodeBERTScore).
SETUP_HINT = "run `refscore setup` (in VS Code: RefScore: Set Up CodeBERTScore)"


@dataclass(frozen=True)
class BertRuntime:
    """Whether CodeBERTScore can run with ``python``; ``missing`` names the modules it lacks."""

    python: str
    missing: tuple[str, ...]

    @property
    def ready(self) -> bool:
        return not self.missing

    @property
    def reason(self) -> str | None:
        """One line: why CodeBERTScore needs setting up here, and how (None when it does not)."""
        if self.ready:
            return None
        return (f"CodeBERTScore is not set up: {' and '.join(self.missing)} not installed in {self.python}; "
                f"{SETUP_HINT}")


def bert_runtime(python: str | None = None) -> BertRuntime:
    """This interpreter's CodeBERTScore runtime (found without importing torch: milliseconds)."""
    missing = tuple(name for name in BERT_MODULES if importlib.util.find_spec(name) is None)
    return BertRuntime(python or sys.executable, missing)
