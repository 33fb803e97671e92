"""``python -m fairprobe.cli``."""

from fairprobe.cli.main import main

if __name__ == "__main__":
    main()
