"""Run OpenStack Placement (Debian's python3-placement) on 127.0.0.1 for the
differential test: sqlite in a temporary folder, auth_strategy = noauth2.
Prints "LISTENING <port>" once it accepts requests; exits when stdin closes,
so the server never outlives the test that started it."""
import os
import shutil
import sys
import tempfile
import threading
from wsgiref.simple_server import WSGIRequestHandler, make_server


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


def main():
    work = tempfile.mkdtemp(prefix="xosplan-placement-")
    with open(os.path.join(work, "placement.conf"), "w") as f:
        log = os.environ.get("XOSPLAN_PLACEMENT_DEBUG", "")
        debug = "[DEFAULT]\ndebug = True\nlog_file = %s\n" % log if log else ""
        f.write(debug + "[api]\nauth_strategy = noauth2\n"
                "[placement_database]\nconnection = sqlite:///%s/placement.db\n"
                "sync_on_startup = True\n" % work)
    os.environ["OS_PLACEMENT_CONFIG_DIR"] = work
    sys.argv = sys.argv[:1]
    from placement import wsgi
    app = wsgi.init_application()
    server = make_server("127.0.0.1", 0, app, handler_class=QuietHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("LISTENING %d" % server.server_port, flush=True)
    sys.stdin.read()
    server.shutdown()
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
