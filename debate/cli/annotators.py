"""`python -m debate annotators ...`: the accounts of a labelling team (the admin's side of sign-in).

add NAME [--reviewer] [--email E] [--no-password] [--password-stdin]   a new account
passwd NAME [--password-stdin]                                        set a new password
role NAME --reviewer | --annotator                                     change what the account may do
remove NAME                                                            delete the account (its labels stay)
list                                                                   every account, without hashes

The password is asked twice on the terminal (never an argument: it would stay in the shell's history
and the process list), or read from standard input with --password-stdin for scripts. Accounts are
kept in the project's SQLite file (DEBATE_STORE_DB, default under DEBATE_HOME); once one exists, the
Adjudicate page asks everyone to sign in.
"""

from __future__ import annotations

import argparse
import getpass
import sys

from debate.errors import InvalidInput


def _store():
    from debate import config
    from debate.adjudication.accounts import AccountStore

    return AccountStore(config.store_db())


def _password(args: argparse.Namespace) -> str:
    if args.password_stdin:
        line = sys.stdin.readline()
        if not line:
            raise InvalidInput("--password-stdin: standard input is empty.", "Pipe the password in, one line.")
        return line.rstrip("\r\n")
    if not sys.stdin.isatty():
        raise InvalidInput("No terminal to ask the password on.", "Use --password-stdin and pipe it in.")
    first = getpass.getpass("Password: ")
    if getpass.getpass("Again: ") != first:
        raise InvalidInput("The two passwords differ.", "Run the command again and type the same password twice.")
    return first


def cmd_add(args: argparse.Namespace) -> int:
    password = None if args.no_password else _password(args)
    ident = _store().add(args.name, password, reviewer=args.reviewer, email=args.email or "")
    how = "a password" if password is not None else f"the team's OIDC provider as {ident.email}"
    print(f"added {ident.name} ({'reviewer' if ident.reviewer else 'annotator'}), signs in with {how}")
    return 0


def cmd_passwd(args: argparse.Namespace) -> int:
    store = _store()
    store._existing(args.name)  # say "no such account" before asking for a password
    store.set_password(args.name, _password(args))
    print(f"password of {args.name.strip()} changed")
    return 0


def cmd_role(args: argparse.Namespace) -> int:
    _store().set_reviewer(args.name, args.reviewer)
    print(f"{args.name.strip()} is now {'a reviewer' if args.reviewer else 'an annotator'}")
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    _store().remove(args.name)
    print(f"removed {args.name.strip()} (the labels given stay under the name)")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    rows = _store().accounts()
    if not rows:
        print("no accounts: the Adjudicate page runs without sign-in (one person on their own machine)")
        return 0
    for r in rows:
        print(
            f"{r['name']:<24} {'reviewer' if r['reviewer'] else 'annotator':<10} "
            f"{'password' if r['password'] else 'no password':<12} {r['email']}"
        )
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "annotators",
        help="accounts of a labelling team (sign-in on the Adjudicate page)",
        description=__doc__.split("\n\n")[0],
    )
    s = p.add_subparsers(dest="annotators_cmd", metavar="ACTION", required=True)
    a = s.add_parser("add", help="a new account")
    a.add_argument("name")
    a.add_argument("--reviewer", action="store_true", help="may open Review and the queue settings")
    a.add_argument("--email", default="", help="the e-mail the team's OIDC provider signs this person in with")
    a.add_argument("--no-password", action="store_true", help="sign in only through the OIDC provider")
    a.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    a.set_defaults(func=cmd_add)
    pw = s.add_parser("passwd", help="set a new password")
    pw.add_argument("name")
    pw.add_argument("--password-stdin", action="store_true")
    pw.set_defaults(func=cmd_passwd)
    r = s.add_parser("role", help="make an account a reviewer or an annotator")
    r.add_argument("name")
    g = r.add_mutually_exclusive_group(required=True)
    g.add_argument("--reviewer", dest="reviewer", action="store_true")
    g.add_argument("--annotator", dest="reviewer", action="store_false")
    r.set_defaults(func=cmd_role)
    rm = s.add_parser("remove", help="delete an account (its labels stay)")
    rm.add_argument("name")
    rm.set_defaults(func=cmd_remove)
    ls = s.add_parser("list", help="every account")
    ls.set_defaults(func=cmd_list)
