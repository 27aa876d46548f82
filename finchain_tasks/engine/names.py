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
    "First Meridian Bank", "Harbor Trust Bank", "Keystone Savings Bank", "Northern Cross Bank",
    "Riverside Community Bank", "Summit National Bank", "Union Square Bank", "Westbridge Bank",
)

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

COMPANY_KINDS = {"any": COMPANIES, "trading": TRADING_FIRMS, "bank": BANKS, "large": LARGE_GROUPS,
                 "industrial": INDUSTRIAL}
"""Name pools by setting, for ``b.company(kind=...)``: names that fit what the firm does in the question."""
