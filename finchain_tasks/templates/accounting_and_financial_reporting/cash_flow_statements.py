"""Cash flow statements: closing cash from the three sections, income taxes paid, operating cash flow by the
indirect method, financing flows, and the effect of acquiring a subsidiary (IAS 7)."""

from finchain_tasks.engine import Builder, template


@template("easy")
def closing_cash_balance(b: Builder) -> None:
    """Closing cash as opening cash plus the net flows of the three sections.

    Source: IAS 7, paras 10 and 45.
    """
    b.company("company")
    cfo = b.money("operating", 800_000, 12_000_000, step=10_000)
    b.money("investing", 0.3 * cfo, 1.1 * cfo, step=10_000)
    b.money("financing", 0.05 * cfo, 0.5 * cfo, step=10_000)
    b.money("opening_cash", 0.3 * cfo, 2 * cfo, step=10_000)
    b.require(b.values["opening_cash"] + cfo - b.values["investing"] - b.values["financing"]
              > 0.15 * b.values["opening_cash"], "closing cash stays clearly positive")
    b.ask(
        "The statement of cash flows of {company} for the year shows net cash from operating activities of "
        "{operating}, net cash used in investing activities of {investing} and net cash used in financing "
        "activities of {financing}. Cash and cash equivalents were {opening_cash} at the start of the year. "
        "What is the closing balance of cash and cash equivalents?"
    )
    b.step("net_change", "Net change in cash (operating − investing − financing)",
           "operating - investing - financing", unit="$")
    b.step("closing_cash", "Closing cash and cash equivalents", "opening_cash + net_change", unit="$")


@template("easy")
def income_taxes_paid(b: Builder) -> None:
    """Income taxes paid from the tax charge and the movement in tax payable.

    Source: IAS 7, para 35; IAS 12.
    """
    b.company("company")
    pretax = b.money("pretax_profit", 1_000_000, 50_000_000, step=10_000)
    rate = b.percent("tax_rate", 18, 30, decimals=0)
    charge = pretax * rate / 100
    b.money("opening_payable", 0.15 * charge, 0.45 * charge, step=1_000)
    b.money("closing_payable", 0.15 * charge, 0.45 * charge, step=1_000)
    b.ask(
        "{company} reports profit before tax of {pretax_profit}; its income tax expense is the current tax at "
        "{tax_rate} of that profit (there is no deferred tax). Income tax payable was {opening_payable} at the "
        "start of the year and {closing_payable} at the end. How much income tax did {company} pay in cash "
        "during the year?"
    )
    b.step("tax_expense", "Income tax expense", "pretax_profit * tax_rate / 100", unit="$")
    b.step("tax_paid", "Tax paid (opening payable + expense − closing payable)",
           "opening_payable + tax_expense - closing_payable", unit="$")


@template("intermediate")
def operating_cash_flow_indirect(b: Builder) -> None:
    """Net cash from operating activities by the indirect method.

    Source: IAS 7, paras 18(b) and 20.
    """
    b.company("company")
    ni = b.money("net_income", 500_000, 10_000_000, step=5_000)
    b.money("depreciation", 0.2 * ni, 0.6 * ni, step=1_000)
    b.money("gain", 0.02 * ni, 0.12 * ni, step=500)
    rec = b.money("rec_open", 0.3 * ni, 1.5 * ni, step=1_000)
    b.derive("rec_close", round(rec * b.rng.uniform(0.8, 1.3), -3), unit="$")
    inv = b.money("inv_open", 0.3 * ni, 1.5 * ni, step=1_000)
    b.derive("inv_close", round(inv * b.rng.uniform(0.8, 1.3), -3), unit="$")
    pay = b.money("pay_open", 0.2 * ni, ni, step=1_000)
    b.derive("pay_close", round(pay * b.rng.uniform(0.8, 1.3), -3), unit="$")
    for item in ("rec", "inv", "pay"):
        b.require(b.values[f"{item}_open"] != b.values[f"{item}_close"], "every working capital item moves")
    b.ask(
        "{company} reports net income of {net_income} after depreciation of {depreciation} and a gain of {gain} "
        "on the sale of equipment (the sale proceeds are an investing cash flow). During the year accounts "
        "receivable moved from {rec_open} to {rec_close}, inventory from {inv_open} to {inv_close} and accounts "
        "payable from {pay_open} to {pay_close}. Using the indirect method, what is net cash from operating "
        "activities?"
    )
    b.step("rec_change", "Increase in receivables (negative for a decrease)", "rec_close - rec_open", unit="$")
    b.step("inv_change", "Increase in inventory (negative for a decrease)", "inv_close - inv_open", unit="$")
    b.step("pay_change", "Increase in payables (negative for a decrease)", "pay_close - pay_open", unit="$")
    b.step("cfo", "Net cash from operating activities (net income + depreciation − gain − increase in "
           "receivables − increase in inventory + increase in payables)",
           "net_income + depreciation - gain - rec_change - inv_change + pay_change", unit="$")


@template("intermediate", floor=10_000)
def financing_cash_flows(b: Builder) -> None:
    """Net cash from financing activities, with dividends paid from the payable movement.

    Source: IAS 7, paras 17 and 31-34; interest paid classified as operating.
    """
    b.company("company")
    shares = b.money("share_issue", 1_000_000, 20_000_000, step=10_000)
    b.money("bond_issue", 0.5 * shares, 2 * shares, step=10_000)
    b.money("repayment", 0.3 * shares, 1.5 * shares, step=10_000)
    b.money("lease_principal", 0.02 * shares, 0.1 * shares, step=1_000)
    declared = b.money("declared", 0.1 * shares, 0.5 * shares, step=1_000)
    b.money("div_open", 0.1 * declared, 0.4 * declared, step=1_000)
    b.money("div_close", 0.1 * declared, 0.4 * declared, step=1_000)
    b.money("interest_paid", 0.02 * shares, 0.08 * shares, step=1_000)
    v = b.values
    net = (shares + v["bond_issue"] - v["repayment"] - v["lease_principal"]
           - (v["div_open"] + declared - v["div_close"]))
    b.require(abs(net) > 0.1 * shares, "financing flows do not nearly cancel")
    b.ask(
        "During the year {company} raised {share_issue} from a share issue and {bond_issue} from a bond issue, "
        "repaid {repayment} of bank loans and paid {lease_principal} of lease principal. It declared dividends "
        "of {declared}; dividends payable were {div_open} at the start of the year and {div_close} at the end. "
        "Interest paid of {interest_paid} is classified as an operating cash flow. What is the net cash flow "
        "from financing activities (negative if an outflow)?"
    )
    b.step("dividends_paid", "Dividends paid (opening payable + declared − closing payable)",
           "div_open + declared - div_close", unit="$")
    b.step("inflows", "Financing inflows (shares + bonds)", "share_issue + bond_issue", unit="$")
    b.step("outflows", "Financing outflows (loan repayment + lease principal + dividends paid)",
           "repayment + lease_principal + dividends_paid", unit="$")
    b.step("net_financing", "Net cash from financing activities", "inflows - outflows", unit="$")


@template("advanced")
def acquisition_in_cash_flow(b: Builder) -> None:
    """Group closing cash in a year a subsidiary is bought, net of cash acquired and of acquired working capital.

    Source: IAS 7, paras 39-42; Elliott and Elliott, Financial Accounting and Reporting, ch. 27.

    Concepts: indirect-method operating cash flow; working capital changes net of acquired balances; acquisition net
    of cash acquired; closing cash reconciliation.
    """
    b.company("group")
    b.company("target")
    b.require(b.values["group"] != b.values["target"], "two different companies")
    ni = b.money("net_income", 2_000_000, 30_000_000, step=10_000)
    consideration = b.money("consideration", 0.4 * ni, 1.5 * ni, step=10_000)
    b.money("cash_acquired", 0.05 * consideration, 0.2 * consideration, step=1_000)
    rec = b.money("rec_open", 0.3 * ni, 1.2 * ni, step=1_000)
    rec_acq = b.money("rec_acquired", 0.1 * rec, 0.3 * rec, step=1_000)
    b.derive("rec_close", round((rec + rec_acq) * b.rng.uniform(0.9, 1.2), -3), unit="$")
    inv = b.money("inv_open", 0.3 * ni, 1.2 * ni, step=1_000)
    inv_acq = b.money("inv_acquired", 0.1 * inv, 0.3 * inv, step=1_000)
    b.derive("inv_close", round((inv + inv_acq) * b.rng.uniform(0.9, 1.2), -3), unit="$")
    b.money("depreciation", 0.2 * ni, 0.5 * ni, step=1_000)
    b.money("capex", 0.2 * ni, 0.8 * ni, step=10_000)
    b.money("dividends", 0.1 * ni, 0.4 * ni, step=1_000)
    b.money("opening_cash", 0.5 * consideration, 1.5 * consideration, step=10_000)
    v = b.values
    for item in ("rec", "inv"):
        b.require(v[f"{item}_close"] != v[f"{item}_open"] + v[f"{item}_acquired"], "organic working capital moves")
    cfo = ni + v["depreciation"] - (v["rec_close"] - rec - rec_acq) - (v["inv_close"] - inv - inv_acq)
    closing = (v["opening_cash"] + cfo - v["capex"] - (consideration - v["cash_acquired"]) - v["dividends"])
    b.require(closing > 0.2 * v["opening_cash"], "closing cash stays clearly positive")
    b.ask(
        "During the year {group} bought 100% of {target} for {consideration} paid in cash; {target} held cash of "
        "{cash_acquired} at the acquisition date. The group's consolidated trade receivables rose from {rec_open} "
        "to {rec_close}, of which {rec_acquired} came in with {target}; consolidated inventory rose from "
        "{inv_open} to {inv_close}, of which {inv_acquired} came in with {target}. Group net income was "
        "{net_income} after depreciation of {depreciation}. The group also spent {capex} on new equipment, paid "
        "dividends of {dividends}, and began the year with cash of {opening_cash}. Using the indirect method "
        "and IAS 7 (the acquisition shown net of cash acquired), what is the group's closing cash balance?"
    )
    b.step("acquisition_outflow", "Net cash paid for the subsidiary (consideration − cash acquired)",
           "consideration - cash_acquired", unit="$")
    b.step("rec_change", "Organic increase in receivables (excluding those acquired)",
           "rec_close - rec_open - rec_acquired", unit="$")
    b.step("inv_change", "Organic increase in inventory (excluding that acquired)",
           "inv_close - inv_open - inv_acquired", unit="$")
    b.step("cfo", "Net cash from operating activities", "net_income + depreciation - rec_change - inv_change",
           unit="$")
    b.step("cfi", "Net cash used in investing activities (equipment + acquisition)",
           "capex + acquisition_outflow", unit="$")
    b.step("net_change", "Net change in cash (operating − investing − dividends)", "cfo - cfi - dividends", unit="$")
    b.step("closing_cash", "Closing cash balance", "opening_cash + net_change", unit="$")
