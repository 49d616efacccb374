"""``python -m function.ingest``: see ``function.ingest``."""

from function.ingest import main

raise SystemExit(main())
