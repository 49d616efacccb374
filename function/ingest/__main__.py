"""``python -m function.ingest``: see ``function.ingest.cli``."""

from function.ingest.cli import main

raise SystemExit(main())
