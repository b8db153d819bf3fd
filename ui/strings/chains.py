"""The chains' and companies' names in other languages: English name -> {language: name}."""

NAMES: dict[str, dict[str, str]] = {}
