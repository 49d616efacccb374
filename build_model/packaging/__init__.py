"""The artifact folder: files and manifest, REPORT.md and its chart."""
