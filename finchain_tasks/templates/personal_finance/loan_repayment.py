"""Loan repayment: amortized payments, total interest, a lump-sum prepayment with the interest it saves,
extra monthly payments, and refinancing.

Payments are rounded to the cent, as lenders quote them, so that totals built from a payment (payment ×
months) are exactly what the shown numbers give. The monthly rate is written as the annual rate ÷ 1,200
(annual percent ÷ 12 months ÷ 100) so that no rounded monthly rate enters a long power.
"""

from finchain_tasks.engine import Builder, template

MORTGAGE_TERMS = {"15-year": 15, "20-year": 20, "25-year": 25, "30-year": 30}
PAYMENT = "round({p} * (rate / 1200) / (1 - (1 + rate / 1200) ** (-{n})), 2)"
"""Level end-of-month payment on balance {p} over {n} months, rounded to the cent."""


@template("easy", floor=10)
def monthly_payment(b: Builder) -> None:
    """Level monthly payment on a fully amortizing loan.

    Source: annuity payment A = P·i / (1 − (1 + i)^−n), Brealey, Myers & Allen, Principles of Corporate
    Finance, ch. 2 (amortizing loans).
    """
    b.person("person")
    years = b.integer("years", 3, 30, unit="years")
    b.money("principal", 5_000, min(400_000, 15_000 * years), step=1_000)  # the size fits the term
    b.percent("rate", 3, 9, decimals=2)
    kind = b.pick(["a loan", "a fixed-rate loan", "an amortizing loan"])
    b.ask(
        f"{{person}} takes out {kind} of {{principal}} at a nominal annual rate of {{rate}}, compounded "
        "monthly, repaid in equal monthly payments made at the end of each month over {years}. "
        "What is the monthly payment? Round to the nearest cent."
    )
    b.step("months", "Number of monthly payments", "years * 12")
    b.step("payment", "Monthly payment (monthly rate = annual rate ÷ 12), to the cent",
           PAYMENT.format(p="principal", n="months"), unit="$")


@template("easy", floor=10)
def total_interest(b: Builder) -> None:
    """Total interest paid over the life of a car loan.

    Source: total interest = n × payment − principal for an amortizing loan, Kapoor, Dlabay & Hughes,
    Personal Finance, ch. 6 (consumer credit).
    """
    b.person("person")
    b.money("principal", 8_000, 60_000, step=500)
    b.percent("rate", 3, 12, decimals=2)
    b.choice("months", {"36 months": 36, "48 months": 48, "60 months": 60, "72 months": 72})
    item = b.pick(["a car", "a used pickup truck", "an electric car"])
    b.ask(
        f"{{person}} finances {item} with a loan of {{principal}} at {{rate}} per year (nominal, compounded "
        "monthly), repaid in equal end-of-month payments over {months}; the payment is rounded to the "
        "nearest cent. How much interest will {they} pay in total over the life of the loan (all payments "
        "minus the amount borrowed)?"
    )
    b.step("payment", "Monthly payment (monthly rate = annual rate ÷ 12), to the cent",
           PAYMENT.format(p="principal", n="months"), unit="$")
    b.step("interest_total", "Total interest (all payments minus principal)", "payment * months - principal", unit="$")


@template("intermediate", floor=10)
def lump_sum_prepayment(b: Builder) -> None:
    """Interest saved by a lump-sum prepayment after which the lender recasts the payment.

    Source: amortization, outstanding balance as the present value of the remaining payments, and
    recasting after a principal prepayment, Fabozzi, The Handbook of Mortgage-Backed Securities, ch. 1.
    With the term unchanged, interest saved = (old payment − new payment) × months left − prepayment.
    """
    b.person("person")
    principal = b.money("principal", 100_000, 800_000, step=5_000)
    b.percent("rate", 3, 8, decimals=2)
    term = b.choice("term", MORTGAGE_TERMS)
    b.integer("years_paid", 2, term - 5, unit="years")
    b.money("prepayment", 5_000, 0.2 * principal, step=1_000)
    b.ask(
        "{person} borrowed {principal} with a {term} fixed-rate mortgage at {rate} per year, compounded "
        "monthly, with level payments, rounded to the cent, at the end of each month. Right after the payment "
        "that completes {years_paid} of payments, {they} pays an extra {prepayment} of principal, and the "
        "lender recasts the loan: a new level payment (also rounded to the cent) repays the reduced balance "
        "over the remaining term at the same rate. Taking the balance as the present value of the remaining "
        "scheduled payments, rounded to the cent, how much interest does the prepayment save over the rest of the loan?"
    )
    b.step("payment", "Scheduled monthly payment (monthly rate = annual rate ÷ 12), to the cent",
           PAYMENT.format(p="principal", n="term * 12"), unit="$")
    b.step("balance", "Outstanding balance (present value of the remaining payments), to the cent",
           "round(payment * (1 - (1 + rate / 1200) ** (-(term - years_paid) * 12)) / (rate / 1200), 2)", unit="$")
    b.step("new_payment", "Recast payment on the balance less the prepayment, to the cent",
           PAYMENT.format(p="(balance - prepayment)", n="(term - years_paid) * 12"), unit="$")
    b.step("payments_cut", "Fall in the total of the remaining payments",
           "(payment - new_payment) * (term - years_paid) * 12", unit="$")
    b.step("interest_saved", "Interest saved, the fall in total payments minus the prepayment",
           "payments_cut - prepayment", unit="$")


@template("intermediate", floor=0.5)
def extra_payment_payoff(b: Builder) -> None:
    """Number of months to repay a loan when a fixed extra amount is added to every payment.

    Source: the number of payments n = −ln(1 − iP/A) / ln(1 + i) of an annuity, Ross, Westerfield &
    Jaffe, Corporate Finance, ch. 4.
    """
    b.person("person")
    years = b.integer("years", 5, 30, unit="years")
    b.money("principal", 10_000, min(300_000, 12_000 * years), step=1_000)  # the size fits the term
    b.percent("rate", 4, 9, decimals=2)
    b.money("extra", 50, 1_000, step=25)
    b.ask(
        "{person} has a loan of {principal} at {rate} per year, compounded monthly, scheduled to be repaid "
        "by equal end-of-month payments, rounded to the cent, over {years}. From the first month {they} pays "
        "an extra {extra} on top of every scheduled payment. How many monthly payments will it take to clear "
        "the loan? Count a smaller final payment as a full payment."
    )
    b.step("payment", "Scheduled monthly payment (monthly rate = annual rate ÷ 12), to the cent",
           PAYMENT.format(p="principal", n="years * 12"), unit="$")
    b.step("new_payment", "Monthly payment including the extra amount", "payment + extra", unit="$")
    b.step("months_exact", "Months to repay, n = −ln(1 − iP/A) / ln(1 + i)",
           "-ln(1 - rate / 1200 * principal / new_payment) / ln(1 + rate / 1200)")
    b.step("months_needed", "Number of payments (rounded up)", "ceil(months_exact)", unit="months")


@template("advanced", floor=100)
def refinance_savings(b: Builder) -> None:
    """Net savings from refinancing a mortgage's remaining balance at a lower rate.

    Source: outstanding balance and refinancing break-even, Fabozzi, The Handbook of Mortgage-Backed
    Securities, ch. 1; Kapoor, Dlabay & Hughes, Personal Finance, ch. 7.

    Concepts: amortized mortgage payment; outstanding balance as the present value of remaining payments; new
    payment at a lower rate; refinancing net savings after closing costs.
    """
    b.person("person")
    b.money("principal", 150_000, 700_000, step=5_000)
    b.percent("old_rate", 6, 8.5, decimals=2)
    term = b.choice("term", {"20-year": 20, "25-year": 25, "30-year": 30})
    b.integer("years_paid", 2, term - 10, unit="years")
    b.percent("new_rate", 3, 5.5, decimals=2)
    b.money("closing_costs", 2_000, 12_000, step=250)
    b.ask(
        "{person} took out a {term} mortgage of {principal} at {old_rate} per year, compounded monthly, "
        "with level end-of-month payments rounded to the cent. After {years_paid} of payments, {they} "
        "refinances the outstanding balance (the present value of the remaining payments, to the cent) at {new_rate} "
        "(compounded monthly, payment rounded to the cent) over the remaining term, so the payoff date does "
        "not change, and pays {closing_costs} of closing costs in cash. Ignoring the time value of money, "
        "what are the net savings from refinancing: the fall in total remaining payments minus the closing "
        "costs (negative if refinancing loses money)?"
    )
    b.step("old_payment", "Original monthly payment (monthly rate = annual rate ÷ 12), to the cent",
           PAYMENT.format(p="principal", n="term * 12").replace("rate", "old_rate"), unit="$")
    b.step("months_left", "Months remaining on the mortgage", "(term - years_paid) * 12")
    b.step("balance", "Balance refinanced (present value of the remaining payments), to the cent",
           "round(old_payment * (1 - (1 + old_rate / 1200) ** (-months_left)) / (old_rate / 1200), 2)", unit="$")
    b.step("new_payment", "New monthly payment, to the cent",
           PAYMENT.format(p="balance", n="months_left").replace("rate", "new_rate"), unit="$")
    b.step("monthly_saving", "Reduction in the monthly payment", "old_payment - new_payment", unit="$")
    b.step("net_savings", "Net savings (payment reduction over the remaining term minus closing costs)",
           "monthly_saving * months_left - closing_costs", unit="$")
