from build_model.cli import main

raise SystemExit(main())
