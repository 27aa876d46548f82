"""Finance regulation: AML, Basel capital, compliance fines, KYC and securities rules."""

from finchain_tasks.engine.names import BANKS  # noqa: F401  (one list of bank names, b.company(kind="bank"))
