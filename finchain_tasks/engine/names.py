"""Names of firms and people that templates draw from (fictional, varied, short)."""

COMPANIES = (
    "Apex Analytics", "Birchwood Capital", "Cobalt Logistics", "Delta Harbor Foods", "Evergreen Solar",
    "Falcon Biotech", "Granite Ridge Mining", "Helios Textiles", "Ironclad Security", "Juniper Health",
    "Keystone Retail", "Lumen Robotics", "Meridian Shipping", "Northwind Traders", "Orion Semiconductors",
    "Pinnacle Foods", "Quarry Lane Builders", "Riverstone Media", "Summit Pharmaceuticals", "Tidewater Energy",
    "Umbra Software", "Vantage Aerospace", "Willow Creek Farms", "Xenon Materials", "Yarrow Insurance",
    "Zephyr Airlines",
)

PEOPLE = (
    "Amara", "Ben", "Chen Wei", "Daniela", "Elif", "Farhan", "Grace", "Hiroshi", "Ines", "Jamal",
    "Kavya", "Lucas", "Maya", "Nikolai", "Olivia", "Priya", "Quentin", "Rosa", "Samir", "Tanya",
    "Umar", "Valentina", "William", "Ximena", "Yusuf", "Zoe",
)

PRONOUNS = {
    "Amara": "she", "Ben": "he", "Chen Wei": "he", "Daniela": "she", "Elif": "she", "Farhan": "he",
    "Grace": "she", "Hiroshi": "he", "Ines": "she", "Jamal": "he", "Kavya": "she", "Lucas": "he",
    "Maya": "she", "Nikolai": "he", "Olivia": "she", "Priya": "she", "Quentin": "he", "Rosa": "she",
    "Samir": "he", "Tanya": "she", "Umar": "he", "Valentina": "she", "William": "he", "Ximena": "she",
    "Yusuf": "he", "Zoe": "she",
}
"""Subject pronoun of each person in PEOPLE, so questions can say "she" after the first mention."""

PRONOUN_FORMS = {
    "she": {"they": "she", "them": "her", "their": "her", "theirs": "hers"},
    "he": {"they": "he", "them": "him", "their": "his", "theirs": "his"},
}

TRADING_FIRMS = (
    "Birchwood Capital", "Harborview Asset Management", "Kestrel Trading", "Larchmont Partners",
    "Marlin Macro Fund", "Northgate Securities", "Silverline Capital", "Tallis Investment Management",
)
"""Desks and funds: who runs covered interest arbitrage, carry trades and writes option contracts."""

BANKS = (
    "First Harbor Bank", "Cedar Valley Bank", "Northgate Savings Bank", "Pacific Crest Bank",
    "Union Ridge Bancorp", "Lakeshore National Bank", "Granite State Trust", "Silverline Bank",
    "Prairie Commerce Bank", "Bayview Federal Bank", "Old Mill Bank", "Redwood Capital Bank",
)
"""Bank names for questions set at a bank (the general company list has textile firms and airlines)."""

LARGE_GROUPS = (
    "Atlas Global Industries", "Consolidated Continental", "Crestline Industries", "Global Meridian Group",
    "Pan-Pacific Holdings", "Sovereign Holdings", "Titan Diversified", "United Horizon Group",
)
"""Groups whose revenue can run to tens of billions (a fictional solar company with $142bn does not)."""

INDUSTRIAL = (
    "Cobalt Logistics", "Granite Ridge Mining", "Helios Textiles", "Lumen Robotics", "Meridian Shipping",
    "Orion Semiconductors", "Quarry Lane Builders", "Tidewater Energy", "Vantage Aerospace", "Xenon Materials",
)
"""Firms that own machinery, plants and fleets (disposals, depreciation, capital projects)."""

FUNDS = (
    "Northstar Capital Fund", "Harborview Growth Fund", "Bluegate Capital Partners", "Crescent Investment Fund",
    "Ironwood Global Equity Fund", "Meadowlark Partners Fund", "Summit Peak Capital", "Tallgrass Opportunities Fund",
    "Westbrook Pension Trust", "Kestrel Macro Fund", "Oakmont Endowment", "Riverbend Absolute Return Fund",
)
"""Funds and portfolios (a portfolio's VaR belongs to a fund, not to an airline)."""

EXCHANGES = ("Arclight Exchange", "Bitharbor", "Coinvale", "Nordchain Markets", "Quantix Exchange", "Satoria",
             "Tessera Digital", "Veldt Exchange", "Kestrel Markets", "Lodestar Crypto")
"""Fictional crypto venues: names that fit an exchange."""

RETAILERS = (
    "Keystone Retail", "Brightway Stores", "Corner Market Group", "Harbor Lane Outfitters", "Maple Street Retail",
    "Northfield Home Goods", "Parkside Grocers", "Sunline Department Stores",
)
SOFTWARE = (
    "Umbra Software", "Apex Analytics", "Brightloop Software", "Cloudharbor Systems", "Kernel Point Software",
    "Nimbus Ledger", "Quillstack Technologies", "Vectorline Cloud",
)
PHARMACEUTICALS = (
    "Summit Pharmaceuticals", "Falcon Biotech", "Alder Therapeutics", "Bellwether Pharma", "Corvane Biosciences",
    "Halden Laboratories", "Meridia Therapeutics", "Novara Pharmaceuticals",
)
FAMILY_OFFICES = (
    "Ashdown Family Office", "Calloway Family Office", "Everleigh Family Office", "Pemberton Family Office",
    "Redfern Family Office", "Whitcombe Family Office",
)

LISTED = (
    "Apex Analytics", "Cobalt Logistics", "Evergreen Solar", "Falcon Biotech", "Lumen Robotics",
    "Orion Semiconductors", "Summit Pharmaceuticals", "Umbra Software", "Vantage Aerospace",
    "Keystone Retail", "Meridian Shipping", "Tidewater Energy",
)
"""Listed companies whose shares and options a question trades."""

COMPANY_KINDS = {"any": COMPANIES, "trading": TRADING_FIRMS, "bank": BANKS, "large": LARGE_GROUPS,
                 "industrial": INDUSTRIAL, "fund": FUNDS, "exchange": EXCHANGES, "retailer": RETAILERS,
                 "software": SOFTWARE, "pharmaceutical": PHARMACEUTICALS, "family office": FAMILY_OFFICES,
                 "listed": LISTED}
"""Name pools by setting, for ``b.company(kind=...)``: names that fit what the firm does in the question."""

DESCRIPTIONS = (
    (r"family office", ("family office",)),
    (r"\b(?:fund|pension|endowment|asset manager|investment adviser|activist manager|hedge fund)\b",
     ("fund", "trading")),
    (r"\bbank\b", ("bank",)),
    (r"\bexchange\b", ("exchange",)),
    (r"\bretail(?:er|ers)?\b|\bstore chain\b|\bsupermarket|\bgrocer", ("retailer",)),
    (r"\bsoftware\b|\bSaaS\b", ("software",)),
    (r"pharmaceutical|\bdrug ?maker|\bbiotech", ("pharmaceutical",)),
)
"""What a question may say a firm is ("X, a retailer"), and the pools a firm so described must come from
(rule "company kind" of :mod:`finchain_tasks.engine.realism`)."""
