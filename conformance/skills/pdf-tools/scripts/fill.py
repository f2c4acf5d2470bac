"""Fills a PDF form (a fixture of the conformance run: it does nothing)."""
print("filled")
