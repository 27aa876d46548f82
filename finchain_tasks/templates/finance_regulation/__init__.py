"""Finance regulation: AML, Basel capital, compliance fines, KYC and securities rules."""
