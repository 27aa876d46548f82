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
