from jaxviz.cli import main

raise SystemExit(main())
