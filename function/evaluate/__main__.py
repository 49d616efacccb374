from function.evaluate.cli import main

raise SystemExit(main())
