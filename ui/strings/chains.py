"""The chains' and companies' names in other languages: English name -> {language: name}.

No Traditional Chinese edition's names are known to us (the older Chinese rulebook names the
chains by colour only), so these are translations: sound for the place names (Luxor, Teton,
Krause), sense for the rest, at most four characters for the narrow columns.
"""

NAMES: dict[str, dict[str, str]] = {
    # Acquire
    "Tower": {"zh-TW": "塔樓"},
    "Luxor": {"zh-TW": "路克索"},
    "American": {"zh-TW": "美國"},
    "Worldwide": {"zh-TW": "環球"},
    "Festival": {"zh-TW": "節慶"},
    "Imperial": {"zh-TW": "帝國"},
    "Continental": {"zh-TW": "洲際"},
    # ACQUISITIONS
    "Solon Clan": {"zh-TW": "梭倫氏族"},
    "Red Crest": {"zh-TW": "紅徽"},
    "Blue Crest": {"zh-TW": "藍徽"},
    "Green Crest": {"zh-TW": "綠徽"},
    "Purple Crest": {"zh-TW": "紫徽"},
    "Lions Head": {"zh-TW": "獅首"},
    "White Crest": {"zh-TW": "白徽"},
    # MEGAcquire GOLD
    "Luster": {"zh-TW": "光澤"},
    "Teton": {"zh-TW": "提頓"},
    "Global": {"zh-TW": "全球"},
    "Fanfare": {"zh-TW": "號角"},
    "Arcadia": {"zh-TW": "阿卡迪亞"},
    "Regal": {"zh-TW": "皇家"},
    "Krause": {"zh-TW": "克勞斯"},
    "Unity": {"zh-TW": "聯合"},
    "Solon": {"zh-TW": "梭倫"},
    "Helix": {"zh-TW": "螺旋"},
    "Watts": {"zh-TW": "瓦特"},
    "Digital": {"zh-TW": "數位"},
    "Physics": {"zh-TW": "物理"},
    "Quasar": {"zh-TW": "類星體"},
}
