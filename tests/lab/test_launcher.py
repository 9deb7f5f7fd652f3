"""The launcher passes the app's Streamlit settings, including the classroom ones."""

from lab.__main__ import streamlit_flags


def test_flags_carry_every_setting_of_the_config_file():
    flags = streamlit_flags()
    assert "--runner.magicEnabled=false" in flags
    assert "--theme.base=light" in flags


def test_a_classroom_server_neither_watches_sources_nor_collects_after_every_run():
    """Both cost more CPU per script run than most pages' own work (bench_classroom_server)."""
    flags = streamlit_flags()
    assert "--server.fileWatcherType=none" in flags
    assert "--runner.postScriptGC=false" in flags


def test_a_spawned_worker_reimporting_the_entry_point_starts_no_app(monkeypatch):
    """Worker processes spawned under the app re-import ``app.py`` as ``__mp_main__``;
    starting the app there would start another executor, and so on."""
    import runpy
    from pathlib import Path

    import lab.app

    calls = []
    monkeypatch.setattr(lab.app, "main", lambda: calls.append(1))
    entry = Path(__file__).resolve().parents[2] / "app.py"
    runpy.run_path(str(entry), run_name="__mp_main__")
    assert calls == []
    runpy.run_path(str(entry), run_name="__main__")
    assert calls == [1]
