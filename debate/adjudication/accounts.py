"""Accounts of a labelling team: who may label, who may review, and how they prove it.

A team is configured when at least one account exists (or an OIDC provider is set up for the app);
with no account the app keeps its one-person path where the name is typed. Accounts live in the
project's SQLite file beside the annotations, in their own table and migration record.

Passwords are hashed with Argon2id (argon2-cffi, its own defaults, rehashed on sign-in when those
defaults grow); the plain password is never stored or logged. A name is an identity whatever its case
or spacing ("Alice" and " alice " are one person), so labels cannot split across spellings. An
account may have no password: it then signs in only through the team's OIDC provider, matched by
e-mail. Repeated wrong passwords lock the account for a while, so a guessed password costs time, and a
password must pass passwords.check_password (visible characters, zxcvbn's estimate).
"""

from __future__ import annotations

import sqlite3
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from debate.adjudication.passwords import check_password
from debate.errors import InvalidInput, checked_text
from debate.store.sqlite import SqliteStore

MAX_NAME = 80
MAX_FAILURES = 5  # wrong passwords in a row before the account is locked for LOCK_MINUTES
LOCK_MINUTES = 5

MIGRATIONS: list[tuple[int, str, str]] = [
    (
        1,
        "annotator accounts",
        """
        CREATE TABLE IF NOT EXISTS annotator_accounts (
            name TEXT PRIMARY KEY,
            email TEXT,
            password_hash TEXT,
            reviewer INTEGER NOT NULL DEFAULT 0,
            failures INTEGER NOT NULL DEFAULT 0,
            locked_until TEXT,
            created_at TEXT NOT NULL
        );
        CREATE UNIQUE INDEX IF NOT EXISTS annotator_accounts_email ON annotator_accounts(email)
    """,
    ),
]


def fold_name(name: str | None) -> str:
    """The identity of a typed name: NFKC, invisible characters dropped (a zero-width space or a bidi
    control would make a second "alice" that looks the same), spaces collapsed, case folded."""
    text = "".join(
        ch
        for ch in unicodedata.normalize("NFKC", name or "")
        if unicodedata.category(ch) not in ("Cc", "Cf") or ch.isspace()
    )
    return " ".join(text.split()).casefold()[:MAX_NAME]


def checked_name(name: str | None, what: str, empty_hint: str) -> str:
    """The folded identity of a name a person typed (an annotator, an account), or InvalidInput when it is
    empty or longer than MAX_NAME: `fold_name` alone would cut it silently, so two long names that differ
    past the cut would become one person's labels."""
    text = checked_text(
        name,
        MAX_NAME,
        what,
        empty_hint,
        "Type a shorter name: a first name or initials are enough, labels are saved under it.",
    )
    key = fold_name(text)
    if not key:  # only invisible characters
        raise InvalidInput(f"{what} is empty.", empty_hint)
    return key


@dataclass(frozen=True)
class Identity:
    """Who is using the page: `name` is the folded identity labels are stored under."""

    name: str
    reviewer: bool = False
    via: str = "local"  # local (typed name, no team) | password | oidc
    email: str = ""


def email_verified(claims: dict) -> bool:
    """Whether the team's OIDC provider vouched for the e-mail of who signed in: only the boolean true
    counts. A claim that is missing, or the string "False" (truthy in Python), proves nothing."""
    return claims.get("email_verified") is True


def _now() -> datetime:
    return datetime.now(UTC)


def _hasher():
    from argon2 import PasswordHasher

    return PasswordHasher()


def _stamp(when: datetime) -> str:
    """A time as stored: ISO 8601 in UTC, always with microseconds, so stamps compare as text in SQL."""
    return when.isoformat(timespec="microseconds")


# One try at a password claims its place in the count before the hash is checked: the account's row comes
# back only when it is not locked (a lock that ran out starts a new count), and the try that reaches
# MAX_FAILURES sets the lock in the same statement. SET expressions read the row as it was.
_FRESH = "(CASE WHEN locked_until IS NULL THEN failures ELSE 0 END)"
_CLAIM = f"""
    UPDATE annotator_accounts SET
        failures = CASE WHEN {_FRESH} + 1 >= :max THEN 0 ELSE {_FRESH} + 1 END,
        locked_until = CASE WHEN {_FRESH} + 1 >= :max THEN :until ELSE NULL END
    WHERE name = :key AND password_hash IS NOT NULL AND (locked_until IS NULL OR locked_until <= :now)
    RETURNING password_hash, reviewer, email
"""


def wrong_sign_in() -> InvalidInput:
    """The one answer to a sign-in that did not succeed, whatever the reason (see AccountStore.verify)."""
    return InvalidInput(
        "Wrong name or password.",
        f"Check both. After {MAX_FAILURES} wrong passwords in a row an account waits {LOCK_MINUTES} minutes, "
        "even for the right one; the team's admin can set a new password.",
    )


_DUMMY_HASH: str | None = None


def _dummy_hash() -> str:
    """A hash to verify against for unknown names, so the time taken does not say which names exist."""
    global _DUMMY_HASH
    if _DUMMY_HASH is None:
        _DUMMY_HASH = _hasher().hash("not a password of anyone")
    return _DUMMY_HASH


class AccountStore(SqliteStore):
    what = "account store"
    migrations_table = "account_migrations"
    migrations = MIGRATIONS

    # -- admin -----------------------------------------------------------------------------------
    def add(self, name: str, password: str | None = None, *, reviewer: bool = False, email: str = "") -> Identity:
        """A new account; `password` None makes an account that signs in only through OIDC (by e-mail)."""
        key = self._name(name)
        email = fold_name(email)
        if password is None and not email:
            raise InvalidInput(
                f"Account {key!r} would have neither a password nor an e-mail to sign in with.",
                "Give a password, or --email for sign-in through the team's OIDC provider.",
            )
        pw_hash = self._hash(password, key) if password is not None else None

        def run(db: sqlite3.Connection) -> None:
            if db.execute("SELECT 1 FROM annotator_accounts WHERE name=?", (key,)).fetchone():
                raise InvalidInput(
                    f"An account {key!r} exists already.", "Pick another name, or change this one's password or role."
                )
            if email and db.execute("SELECT 1 FROM annotator_accounts WHERE email=?", (email,)).fetchone():
                raise InvalidInput(f"Another account has the e-mail {email!r}.", "One e-mail, one account.")
            db.execute(
                "INSERT INTO annotator_accounts (name, email, password_hash, reviewer, created_at) VALUES (?,?,?,?,?)",
                (key, email or None, pw_hash, int(bool(reviewer)), _now().isoformat()),
            )

        self._tx(run)
        return Identity(key, bool(reviewer), "password" if pw_hash else "oidc", email)

    def set_password(self, name: str, password: str) -> None:
        key = self._existing(name)
        pw_hash = self._hash(password, key)
        self._tx(
            lambda db: db.execute(
                "UPDATE annotator_accounts SET password_hash=?, failures=0, locked_until=NULL WHERE name=?",
                (pw_hash, key),
            )
        )

    def set_reviewer(self, name: str, reviewer: bool) -> None:
        key = self._existing(name)
        self._tx(
            lambda db: db.execute("UPDATE annotator_accounts SET reviewer=? WHERE name=?", (int(bool(reviewer)), key))
        )

    def remove(self, name: str) -> None:
        """Delete the account (its labels stay, under its name: they were given)."""
        key = self._existing(name)
        self._tx(lambda db: db.execute("DELETE FROM annotator_accounts WHERE name=?", (key,)))

    def accounts(self) -> list[dict]:
        """Every account without its hash: name, e-mail, reviewer, whether it has a password, created."""
        return [
            {
                "name": r["name"],
                "email": r["email"] or "",
                "reviewer": bool(r["reviewer"]),
                "password": r["password_hash"] is not None,
                "created_at": r["created_at"],
            }
            for r in self._q("SELECT * FROM annotator_accounts ORDER BY name")
        ]

    def team(self) -> bool:
        """True when the app serves a team: at least one account exists."""
        return bool(self._q("SELECT 1 FROM annotator_accounts LIMIT 1"))

    def has_passwords(self) -> bool:
        return bool(self._q("SELECT 1 FROM annotator_accounts WHERE password_hash IS NOT NULL LIMIT 1"))

    # -- sign-in ---------------------------------------------------------------------------------
    def verify(self, name: str, password: str) -> Identity:
        """The identity when name and password match; InvalidInput otherwise, with one message and the
        same work (one Argon2 verification) for an unknown name, a locked account and a wrong password,
        so neither the answer nor its time says which names exist or which are locked.

        Each try claims its place in the account's count of failures before the hash is checked, in one
        UPDATE (`_CLAIM`), and only a try that found the account unlocked checks the real hash: tries made
        in parallel cannot all read "not locked" first, so at most MAX_FAILURES passwords are checked per
        lock window, however many arrive at once. A right password then clears the count."""
        key = fold_name(name)
        now = _now()
        until = now + timedelta(minutes=LOCK_MINUTES)
        row = None
        if key:
            rows = self._tx(
                lambda db: db.execute(
                    _CLAIM, {"key": key, "now": _stamp(now), "until": _stamp(until), "max": MAX_FAILURES}
                ).fetchall()
            )
            row = rows[0] if rows else None
        if row is None or row["password_hash"] is None:  # unknown, locked, or an account without a password
            self._check(_dummy_hash(), password or "")  # the same work as for a real account
            raise wrong_sign_in()
        if not self._check(row["password_hash"], password or ""):
            raise wrong_sign_in()  # the failure was counted by the claim
        new_hash = None
        if _hasher().check_needs_rehash(row["password_hash"]):
            new_hash = self._hash(password, key, check_policy=False)
        self._tx(
            lambda db: db.execute(
                "UPDATE annotator_accounts SET failures=0, locked_until=NULL, "
                "password_hash=COALESCE(?, password_hash) WHERE name=?",
                (new_hash, key),
            )
        )
        return Identity(key, bool(row["reviewer"]), "password", row["email"] or "")

    def get(self, name: str) -> Identity | None:
        """The account of a name as it is now (role included); None when there is none."""
        key = fold_name(name)
        rows = self._q("SELECT * FROM annotator_accounts WHERE name=?", (key,)) if key else []
        if not rows:
            return None
        r = rows[0]
        return Identity(r["name"], bool(r["reviewer"]), "password" if r["password_hash"] else "oidc", r["email"] or "")

    def by_email(self, email: str) -> Identity | None:
        """The account of an e-mail the team's OIDC provider vouched for; None when it has no account."""
        email = fold_name(email)
        rows = self._q("SELECT * FROM annotator_accounts WHERE email=?", (email,)) if email else []
        return Identity(rows[0]["name"], bool(rows[0]["reviewer"]), "oidc", email) if rows else None

    # -- helpers ---------------------------------------------------------------------------------
    @staticmethod
    def _name(name: str) -> str:
        return checked_name(name, "The account's name", "Give a name, e.g. alice.")

    def _existing(self, name: str) -> str:
        key = self._name(name)
        if not self._q("SELECT 1 FROM annotator_accounts WHERE name=?", (key,)):
            raise InvalidInput(f"No account {key!r}.", "List the accounts with `python -m debate annotators list`.")
        return key

    @staticmethod
    def _hash(password: str, name: str = "", *, check_policy: bool = True) -> str:
        if check_policy:
            check_password(password, name)
        return _hasher().hash(password)

    @staticmethod
    def _check(pw_hash: str, password: str) -> bool:
        from argon2.exceptions import InvalidHashError, VerificationError

        try:
            return bool(_hasher().verify(pw_hash, password[:1024]))
        except (VerificationError, InvalidHashError):
            return False
