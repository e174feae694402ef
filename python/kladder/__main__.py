"""The `kladder` command the package installs: the C command in the
package's bin/ folder, which finds the package's libkladder.so by its run
path ($ORIGIN/../lib)."""
import os
import sys


def main():
    from ._lib import command_path
    path = command_path()
    os.execv(path, [path] + sys.argv[1:])


if __name__ == "__main__":
    main()
