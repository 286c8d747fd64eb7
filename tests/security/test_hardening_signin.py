"""A labelling team's sign-in on real SQLite files and real Argon2 hashes: the lock holds when many tries
arrive at once (two connections, as the app and a second process would be), a locked, unknown or wrong
account gets one message after the same work, weak and invisible passwords are refused, and only an
OIDC provider's boolean `email_verified: true` vouches for an e-mail."""

from __future__ import annotations

import statistics
import threading
import time

import pytest
from argon2 import PasswordHasher

from debate.adjudication import accounts
from debate.adjudication.accounts import MAX_FAILURES, AccountStore, email_verified
from debate.adjudication.passwords import check_password, visible
from debate.errors import InvalidInput


def _smaller_hashes(monkeypatch, memory_kib: int) -> None:
    """Argon2id with smaller costs than the app's, so a test's many verifications take a moment (the race
    is in the SQL, and the timing in doing the same work, whatever the hash costs)."""
    monkeypatch.setattr(accounts, "_hasher", lambda: PasswordHasher(time_cost=1, memory_cost=memory_kib, parallelism=1))
    monkeypatch.setattr(accounts, "_DUMMY_HASH", None)


@pytest.fixture
def cheap_hashes(monkeypatch):
    _smaller_hashes(monkeypatch, 1024)


def _count_real_checks(monkeypatch) -> list[str]:
    """Every hash `_check` is asked about, in order (the dummy's included)."""
    seen: list[str] = []
    real = AccountStore._check

    def counting(pw_hash: str, password: str) -> bool:
        seen.append(pw_hash)
        return real(pw_hash, password)

    monkeypatch.setattr(AccountStore, "_check", staticmethod(counting))
    return seen


def test_thirty_parallel_sessions_get_at_most_the_limit_of_checks_in_one_lock_window(
    tmp_path, monkeypatch, cheap_hashes
):
    db = tmp_path / "team.sqlite"
    first, second = AccountStore(db), AccountStore(db)  # two connections to one file
    first.add("ben", "ben's real passphrase")
    ben_hash = first._q("SELECT password_hash FROM annotator_accounts WHERE name='ben'")[0]["password_hash"]
    seen = _count_real_checks(monkeypatch)
    answers: list[str] = []
    start = threading.Barrier(30)

    def guesser(i: int) -> None:
        store = first if i % 2 else second
        start.wait()
        for j in range(6):
            try:
                store.verify("ben", f"guess {i} {j}")
            except InvalidInput as e:
                answers.append(e.message)

    threads = [threading.Thread(target=guesser, args=(i,)) for i in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(answers) == 180 and set(answers) == {"Wrong name or password."}
    real_checks = sum(1 for h in seen if h == ben_hash)
    assert real_checks <= MAX_FAILURES, f"{real_checks} of 180 wrong passwords were checked against ben's hash"
    assert len(seen) == 180  # every try did the same work: the locked ones against the dummy hash
    with pytest.raises(InvalidInput, match="Wrong name or password"):  # locked: even the right one waits
        first.verify("ben", "ben's real passphrase")


def _median_s(fn, n: int = 5) -> float:
    """The median wall time of `fn()` over `n` calls (each expected to raise InvalidInput)."""
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        with pytest.raises(InvalidInput):
            fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def test_locked_unknown_and_wrong_get_one_message_and_the_same_work(tmp_path, monkeypatch):
    _smaller_hashes(monkeypatch, 16 * 1024)  # ~10 ms a hash: long enough to see a path that skips it
    acc = AccountStore(tmp_path / "team.sqlite")
    acc.add("alice", "alice's long passphrase")
    acc.add("bob", "bob's long passphrase")
    for _ in range(MAX_FAILURES):
        with pytest.raises(InvalidInput):
            acc.verify("alice", "not it at all")
    said = {}
    for case, name in (("locked", "alice"), ("unknown", "mallory"), ("wrong", "bob")):
        with pytest.raises(InvalidInput) as e:
            acc.verify(name, "not it at all")
        said[case] = (e.value.message, e.value.hint)
        assert name not in e.value.message + e.value.hint
    assert len(set(said.values())) == 1, said  # nothing tells the three apart

    real = AccountStore._check
    seen = _count_real_checks(monkeypatch)
    for name in ("alice", "mallory", "bob"):
        seen.clear()
        with pytest.raises(InvalidInput):
            acc.verify(name, "not it at all")
        assert len(seen) == 1, name  # one Argon2 verification each, with the same parameters
        assert seen[0].split("$")[3] == accounts._hasher().hash("x").split("$")[3]
    monkeypatch.setattr(AccountStore, "_check", staticmethod(real))
    times = {
        name: _median_s(lambda name=name: acc.verify(name, "not it at all")) for name in ("bob", "alice", "mallory")
    }
    # not a tight bound (a shared machine); the break measured was 0 ms for a locked account against ~360 ms
    for name in ("alice", "mallory"):
        assert times[name] > 0.4 * times["bob"], times


@pytest.mark.parametrize(
    "password, why",
    [
        ("12345678", "too easy to guess"),
        ("password", "too easy to guess"),
        ("P@ssw0rd", "too easy to guess"),
        ("\u200b" * 8, "no visible characters"),
        (" " * 12, "no visible characters"),
        ("\u3164\u2800\u00a0\u2066" * 4, "no visible characters"),
        ("ab\u200b\u200b\u200b\u200b\u200bcd", "too short"),
        ("short", "too short"),
    ],
)
def test_weak_blank_and_invisible_passwords_are_refused(tmp_path, password, why):
    with pytest.raises(InvalidInput, match=why):
        check_password(password, "carol")
    acc = AccountStore(tmp_path / "team.sqlite")
    with pytest.raises(InvalidInput, match=why):
        acc.add("carol", password)
    assert not acc.team()


def test_a_passphrase_passes_and_the_name_itself_does_not(tmp_path):
    check_password("plum kettle orbit", "carol")
    assert visible("\uff41\u200bb c") == "ab" + "c"  # NFKC folds the full-width a; the zero-width space goes
    with pytest.raises(InvalidInput, match="too easy to guess"):
        check_password("carolcarol", "carol")
    acc = AccountStore(tmp_path / "team.sqlite")
    acc.add("carol", "plum kettle orbit")
    with pytest.raises(InvalidInput, match="too easy to guess"):
        acc.set_password("carol", "password1")


@pytest.mark.parametrize(
    "claims, verified",
    [
        ({"email_verified": True}, True),
        ({"email_verified": False}, False),
        ({"email_verified": "False"}, False),
        ({"email_verified": "true"}, False),
        ({"email_verified": 1}, False),
        ({}, False),
    ],
)
def test_only_the_boolean_true_verifies_an_email(claims, verified):
    assert email_verified({"email": "a@example.org", **claims}) is verified
