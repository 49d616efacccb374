"""Work started beside a request or the warm-up finishes before the process exits (function/service/background.py)."""

import subprocess
import sys


def test_the_process_waits_for_background_work_before_it_exits(tmp_path):
    """A daemon thread still inside native code when the interpreter finalises aborted the process (the Lance index
    opening, an ONNX Runtime session loading, as a warm-up's caller exited): the exit now waits for it, so work
    started just before exit completes (here: a file written after the main thread has returned)."""
    done = tmp_path / "done"
    code = ("import time\n"
            "from function.service import background\n"
            f"background.start(lambda: (time.sleep(0.5), open({str(done)!r}, 'w').write('ok')), name='late')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert done.read_text() == "ok"


def test_the_wait_at_exit_is_bounded():
    """A thread that never ends (a hung connection) holds the exit back ``EXIT_WAIT_S`` at most, then the process
    goes."""
    import threading

    from function.service import background

    stop = threading.Event()
    thread = background.start(stop.wait, name="hung")
    try:
        background.finish(wait_s=0.05)
        assert thread.is_alive()  # waited for, not forever
    finally:
        stop.set()
        thread.join(5)
    assert not thread.is_alive() and thread not in background._live
