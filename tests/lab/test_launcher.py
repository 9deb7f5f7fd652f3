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
