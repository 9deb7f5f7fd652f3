"""The shipped folders are found where this copy of the code is, whatever else is installed."""

from pathlib import Path

from engine.paths import PRETRAINED_ENV, beside_package, pretrained_dir
from lab.app import pages_dir

ROOT = Path(__file__).resolve().parents[1]


def test_a_checkout_uses_its_own_weights_and_pages(monkeypatch):
    """Even with another checkout installed in editable mode (whose finder would answer
    ``import engine.pretrained``): a second worktree must not run, or export into, the
    first one's files."""
    monkeypatch.delenv(PRETRAINED_ENV, raising=False)
    assert pretrained_dir() == ROOT / "pretrained"
    assert pages_dir() == ROOT / "app_pages"


def test_a_wheel_layout_has_the_folder_inside_the_package(tmp_path):
    installed = tmp_path / "site-packages" / "lab"
    (installed / "app_pages").mkdir(parents=True)
    assert beside_package(installed, "app_pages") == installed / "app_pages"
    checkout = tmp_path / "checkout" / "lab"
    checkout.mkdir(parents=True)
    assert beside_package(checkout, "app_pages") == tmp_path / "checkout" / "app_pages"


def test_code_version_names_the_commit_or_says_unknown():
    from engine.paths import code_version

    version = code_version()
    assert version == "unknown" or (len(version.removesuffix("+dirty")) >= 7
                                    and " " not in version)
