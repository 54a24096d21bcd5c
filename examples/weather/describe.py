def describe(city: str, w: dict) -> str:
    """One sentence on the weather of a city."""
    return (f"{city}: {w['conditions'].lower()}, {w['temperature']:g} °C, "
            f"humidity {w['humidity']:g}%")
