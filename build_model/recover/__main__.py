from build_model.recover.cli import main

raise SystemExit(main())
