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
