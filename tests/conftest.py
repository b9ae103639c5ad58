"""Shared fixtures: a tiny RUSSE-like dataset on disk and the real fetched data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from detox_core.data import PROJECT_ROOT

#: With CI=true a skipped test fails with its reason (tests/ci_skips.py, ``ci_may_skip`` marks
#: the few skips that are right even there). Its helpers are imported where they are used:
#: imported here, the plugin would be imported before pytest registers it.
pytest_plugins = ["tests.ci_skips"]

TINY_TRAIN = (
    "index\ttoxic_comment\tneutral_comment1\tneutral_comment2\tneutral_comment3\n"
    "0\tты дебил, иди отсюда\tты неправ, иди отсюда\tуйди, пожалуйста\t\n"
    "1\tэтот мудак опять врёт\tэтот человек опять врёт\t\t\n"
    "2\tкакая хрень эта ваша новость\tкакая ерунда эта ваша новость\tэта новость плохая\tнеинтересная новость\n"
    "3\tЁлки, ну и погода блять\tЁлки, ну и погода\t\t\n"
    "4\t\"цитата \"\"дебилы\"\" с кавычками\"\tцитата с кавычками\t\t\n"
)
TINY_DEV = (
    "toxic_comment\tneutral_comment1\tneutral_comment2\tneutral_comment3\n"
    "заткнись уже, идиот\tпомолчи уже\t\t\n"
    "<script>alert(1)</script> тупой\t<b>не</b> умный\t\t\n"
)
TINY_TEST = "toxic_comment\tneutral_comment1\nсука как же надоело\tкак же надоело\n"
TINY_TOXIC_10K = "\n".join(["ты дебил", "вот хрень", "сука надоело", "мудак ты", "идиот полный", "тупой как пробка"] * 3) + "\n"
TINY_LEXICON = "дебил\nмудак\nхрень\nблять\nсука\nидиот\nтупой\n"


def write_tiny_dataset(root: Path) -> Path:
    """Write a small dataset in the RUSSE-2022 layout under ``root/russe2022``."""
    base = root / "russe2022"
    (base / "lexicon").mkdir(parents=True, exist_ok=True)
    (base / "train.tsv").write_text(TINY_TRAIN, encoding="utf-8")
    (base / "dev.tsv").write_text(TINY_DEV, encoding="utf-8")
    (base / "test_references.tsv").write_text(TINY_TEST, encoding="utf-8")
    (base / "lexicon" / "toxic_vocab.txt").write_text(TINY_LEXICON, encoding="utf-8")
    (base / "lexicon" / "ru_toxic_10k.txt").write_text(TINY_TOXIC_10K, encoding="utf-8")
    (base / "outputs").mkdir(exist_ok=True)
    (base / "outputs" / "delete_test.txt").write_text("как же надоело\n", encoding="utf-8")
    (base / "outputs" / "copy_test.txt").write_text("сука как же надоело\n", encoding="utf-8")
    return base


@pytest.fixture
def tiny_data(tmp_path, monkeypatch) -> Path:
    """A tiny dataset, made the app's data directory."""
    write_tiny_dataset(tmp_path)
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DETOX_DB_URL", f"sqlite:///{tmp_path / 'detox.sqlite'}")
    return tmp_path


@pytest.fixture(scope="session")
def real_data() -> Path:
    """The fetched RUSSE-2022 data (``make test`` fetches it first).

    In CI a missing dataset is a failure, elsewhere the tests that need it skip.
    """
    base = Path(os.environ.get("DETOX_DATA_DIR", PROJECT_ROOT / "data")) / "russe2022"
    if not (base / "train.tsv").is_file():
        from tests.ci_skips import in_ci

        msg = f"RUSSE-2022 data not fetched into {base}: run `python -m detox_core fetch-data`"
        if in_ci():
            pytest.fail(msg)
        pytest.skip(msg)
    return base


@pytest.fixture(scope="session")
def embedded_models(real_data) -> Path:
    """The embedded preset's heads (they ship with the package: nothing to train), with the
    real data fetched."""
    from detox_core.embedded.heads import heads_folder

    return heads_folder()


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory) -> dict[str, Path]:
    """Tiny STA/FL classifiers, a SIM encoder and a sentence-transformers model, on disk."""
    from tests.tiny_models import build_all

    return build_all(tmp_path_factory.mktemp("models"))


@pytest.fixture
def trained(tiny_data) -> Path:
    """The tiny dataset, the embedded preset ready to score (its heads ship: nothing to train)."""
    return tiny_data


@pytest.fixture(params=["sqlite", "postgresql"])
def sql_url(request, tmp_path) -> str:
    """A database URL for storage tests: SQLite in ``tmp_path``, and PostgreSQL when
    ``DETOX_TEST_POSTGRES_URL`` names a database the tests may empty (``.ci/run`` starts one).
    Required (a failure when missing) with ``DETOX_REQUIRE_POSTGRES=1`` or ``CI=true``."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.sqlite'}"
    url = os.environ.get("DETOX_TEST_POSTGRES_URL")
    if not url:
        from tests.ci_skips import required

        if required("DETOX_REQUIRE_POSTGRES"):
            pytest.fail("DETOX_TEST_POSTGRES_URL is not set (DETOX_REQUIRE_POSTGRES=1 or CI=true)")
        pytest.skip("no PostgreSQL test database (set DETOX_TEST_POSTGRES_URL)")
    engine = create_engine(url)
    with engine.begin() as conn:  # start from an empty schema
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()
    return url
