"""The documentation sources, pinned by name and version, fetched and unpacked into ``build/docdata/pkgs/``.

A Debian package is fetched with ``apt-get download NAME=VERSION`` and unpacked with ``dpkg -x``; an npm package
with ``npm pack NAME@VERSION`` and ``tar``. Man pages (``generator = "man"``) are rendered to plain text with
``groff -man -Tutf8`` (as ``man`` shows them), and the text is what ingestion reads. An unpacked package is
kept (a ``.done`` marker is written last), so a second run reads it from the disk.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from build_model.docdata import refuse_forbidden


class FetchError(RuntimeError):
    """A package could not be downloaded or unpacked (the message names it)."""


@dataclass(frozen=True)
class Source:
    name: str
    version: str
    origin: str  # "deb" or "npm"
    generator: str  # "sphinx", "gtkdoc", "docbook", "markdown", "man"

    @property
    def key(self) -> str:
        return f"{self.name}_{self.version}".replace(":", "%3a").replace("/", "_")


def _deb(generator: str, lines: str) -> list[Source]:
    return [Source(n, v, "deb", generator) for n, v in (ln.split() for ln in lines.strip().splitlines())]


def _npm(lines: str) -> list[Source]:
    return [Source(n, v, "npm", "markdown") for n, v in (ln.split() for ln in lines.strip().splitlines())]


# Debian 12 (bookworm) versions; npm versions as the registry had them on 2026-11-26.
SOURCES: list[Source] = [
    *_deb("sphinx", """
python-sqlalchemy-doc 1.4.46+ds1-1
python-celery-doc 5.2.6-5
python-lxml-doc 4.9.2-1
python-peewee-doc 3.14.10+dfsg-1
python-pymongo-doc 3.11.0-1+deb12u1
python-pygments-doc 2.14.0+dfsg-1
python-kombu-doc 5.2.4-1
python-flask-doc 2.2.2-3
python-cryptography-doc 38.0.4-3+deb12u1
python-werkzeug-doc 2.2.2-3+deb12u1
python-pytest-doc 7.2.1-2
python-aiohttp-doc 3.8.4-1+deb12u1
python-jinja2-doc 3.1.2-1+deb12u3
python-click-doc 8.1.3-2
python-psycopg2-doc 2.9.5-1
python-psycopg-doc 3.1.7-4
python-mako-doc 1.2.4+ds-1
python-bs4-doc 4.11.2-2
python-blinker-doc 1.5-1
python-cachelib-doc 0.9.0-1
python-configobj-doc 5.0.8-1
python-h5py-doc 3.7.0-8
python-mpmath-doc 1.2.1-2
python-mutagen-doc 1.46.0-1
python-natsort-doc 8.0.2-2
python-pexpect-doc 4.8.0-4
python-pyparsing-doc 3.0.9-1
python-openssl-doc 23.0.0-1
python-pycurl-doc 7.45.2-3
python-pylibmc-doc 1.6.3-1
python-tables-doc 3.7.0-5
python-pydicom-doc 2.3.1-1
python-pil-doc 9.4.0-1.1+deb12u1
python-polib-doc 1.1.1-1
python-humanfriendly-doc 10.0-3
python-jsonpickle-doc 3.0.0+dfsg1-1
python-logbook-doc 1.5.3-5.2
python-factory-boy-doc 2.11.1-5
python-cherrypy3-doc 18.8.0-2
python-genshi-doc 0.7.7-2
python-fsspec-doc 2022.11.0-1
python-pycryptodome-doc 3.11.0+dfsg1-4
python-cbor2-doc 5.4.6-1
python-bidict-doc 0.22.1-1
python-fonttools-doc 4.38.0-1+deb12u1
python-pyroute2-doc 0.7.2-2
python-mpi4py-doc 3.1.4-2
python-pygame-doc 2.1.2+dfsg-5
python-pg8000-doc 1.10.6-3
python-attr-doc 22.2.0-1
python-babel-doc 2.10.3-1
python-tornado-doc 6.2.0-3+deb12u4
sphinx-doc 5.3.0-4
python-asyncssh-doc 2.10.1-2+deb12u2
python-markdown-doc 3.4.1-2+deb12u1
python-greenlet-doc 2.0.2-1
python-gevent-doc 22.10.2-3
python-eventlet-doc 0.33.1-4
python-hypothesis-doc 6.67.1-1
python-mock-doc 4.0.3-4
python-nose2-doc 0.12.0-1
python-coverage-doc 6.5.0+dfsg1-2
python-simplejson-doc 3.18.3-1
python-arrow-doc 1.2.3-1
python-toolz-doc 0.12.0-1
python-structlog-doc 22.3.0-2
python-wtforms-doc 3.0.1-2
python-webob-doc 1:1.8.6-3
python-bottle-doc 0.12.23-1.1
python-sqlobject-doc 3.10.1+dfsg-2
python-ldap-doc 3.4.3-2+deb12u1
python-scrapy-doc 2.8.0-2
python-uvicorn-doc 0.17.6-1
python-rdflib-doc 6.1.1-1
python-sqlparse-doc 0.4.2-1+deb12u1
python-dbus-doc 1.3.2-4
python-cairocffi-doc 1.4.0-1
python3-cairo-doc 1.20.1-5
python-pyasn1-doc 0.4.8-3+deb12u2
python-elasticsearch-doc 7.17.6-1
python-pika-doc 1.2.0-1
python-amqp-doc 5.1.1-1
python-vine-doc 5.0.0+dfsg-3
python-billiard-doc 4.1.0-1
python-cffi-doc 1.15.1-5
python-bleach-doc 5.0.1-2
python-itsdangerous-doc 2.1.2-3
python-flask-login-doc 0.6.2-1
python-flask-restful-doc 0.3.9-6
python-requests-oauthlib-doc 1.3.0+ds-1
python-nacl-doc 1.5.0-2
python-psutil-doc 5.9.4-1
python-cmd2-doc 2.4.2+ds-3
python-urwid-doc 2.1.2-4
python-jsonschema-doc 4.10.3-1
python-sqlalchemy-utils-doc 0.38.2-2
python-pywt-doc 1.1.1-3
python-nbformat-doc 5.5.0-1
python-jupyter-client-doc 7.4.9-2
python-traitlets-doc 5.5.0-1
python-testtools-doc 2.5.0-4
python-webtest-doc 3.0.0-2
python-waitress-doc 2.1.2-2+deb12u1
python-django-doc 3:3.2.25-0+deb12u3
"""),
    *_npm("""
glob 14.0.6
semver 7.8.6
uuid 14.0.3
mkdirp 3.0.1
rimraf 6.1.4
fs-extra 11.4.1
body-parser 2.4.0
cors 2.8.6
morgan 1.12.1
multer 2.5.0
jsonwebtoken 9.0.3
moment 2.31.0
dayjs 1.11.23
async 3.2.6
bluebird 3.7.2
got 16.1.0
node-fetch 3.3.2
superagent 10.4.2
cheerio 1.2.0
marked 18.2.1
markdown-it 15.0.3
handlebars 4.7.10
ejs 7.0.2
nunjucks 3.2.4
socket.io 4.8.4
ioredis 6.0.0
pg 8.23.1
mysql 2.18.1
knex 3.3.0
winston 3.19.0
pino 10.4.0
yaml 2.9.1
js-yaml 5.5.0
ajv 8.20.0
joi 18.3.2
validator 13.15.35
qs 6.17.1
cookie 2.0.2
express-session 1.19.0
helmet 8.3.0
http-proxy 1.18.1
nodemailer 10.6.1
archiver 8.0.0
tar 7.5.23
chokidar 6.0.0
micromatch 4.0.8
minimatch 11.0.9
picomatch 4.0.7
fast-glob 3.3.3
globby 16.2.4
execa 10.2.1
cross-spawn 7.0.6
inquirer 14.2.5
ora 9.4.1
prompts 2.4.2
meow 14.1.0
mime 4.1.2
mime-types 3.0.2
serve-static 2.2.1
compression 1.8.2
lru-cache 11.5.3
p-limit 7.3.3
p-queue 10.0.0
eventemitter3 5.0.4
node-cache 5.1.2
ms 2.1.3
bytes 3.1.2
date-fns 4.4.0
request 2.88.2
sharp 0.35.5
jimp 1.6.1
mongoose 9.12.1
sequelize 6.37.8
redis 6.3.1
csv-parse 7.0.3
papaparse 5.7.1
xml2js 0.6.2
fast-xml-parser 5.12.1
luxon 3.7.2
immutable 5.2.1
ramda 0.32.0
underscore 1.13.8
uglify-js 3.19.3
terser 5.51.4
esbuild 0.28.2
prettier 3.10.1
mocha 12.0.3
sinon 22.1.0
chai 6.3.0
nock 15.0.6
supertest 7.3.2
bull 4.16.5
cron 4.4.0
node-cron 4.6.0
fastify 5.12.8
koa 3.3.0
@hapi/hapi 21.4.10
undici 8.13.1
ava 8.1.2
eslint-plugin-import 2.32.0
eslint-plugin-react 7.37.5
eslint-plugin-unicorn 80.0.0
eslint-plugin-jest 29.17.0
eslint-plugin-jsdoc 65.4.3
stylelint 18.1.0
yup 1.7.1
zod 4.6.7
mysql2 3.24.6
engine.io 6.6.12
markdownlint 0.42.1
postcss 8.5.33
browserslist 4.29.6
core-js 3.51.0
eslint-plugin-n 18.5.0
eslint-plugin-promise 7.3.0
@typescript-eslint/eslint-plugin 8.74.0
eslint-plugin-vue 10.12.1
eslint-plugin-jsx-a11y 6.10.2
eslint-plugin-security 4.1.0
"""),
    *_deb("gtkdoc", """
libglib2.0-doc 2.74.6-2+deb12u9
libgtk-3-doc 3.24.38-2~deb12u3
libgtk2.0-doc 2.24.33-2+deb12u1
libjson-glib-doc 1.6.6-1
libgdk-pixbuf2.0-doc 2.42.10+dfsg-1+deb12u4
libcairo2-doc 1.16.0-7
libsoup2.4-doc 2.74.3-1+deb12u1
libsoup-3.0-doc 3.2.3-0+deb12u2
libpoppler-glib-doc 22.12.0-2+deb12u2
libvte-2.91-doc 0.70.6-2~deb12u1
libgirepository1.0-doc 1.74.0-3
libatk1.0-doc 2.46.0-5
libnotify-doc 0.8.1-1
libgtksourceview-4-doc 4.8.4-4
libclutter-1.0-doc 1.26.4+dfsg-4
libcogl-doc 1.22.8-3
libgexiv2-doc 0.14.0-1
libgdata-doc 0.18.1-2
libgcr-3-doc 3.41.1-1
libmm-glib-doc 1.20.4-1
libqmi-glib-doc 1.32.2-1
libmbim-glib-doc 1.28.2-1
libaccountsservice-doc 22.08.8-6
libharfbuzz-doc 6.0.0+dfsg-3
libgoa-1.0-doc 3.46.0-1
libostree-doc 2022.7-2+deb12u1
libflatpak-doc 1.14.10-1~deb12u2
libgck-1-doc 3.41.1-1
libgxps-doc 0.3.2-2
libgit2-glib-1.0-doc 1.1.0-1
evolution-data-server-doc 3.46.4-2
libgrilo-0.3-doc 0.3.15-1
libchamplain-doc 0.12.20-1
libgeocode-glib-doc 3.26.3-6
libnice-doc 0.1.21-1
libtelepathy-glib-doc 0.24.2-0.1
libdbus-glib-1-doc 0.112-3
libpeas-doc 1.34.0-1+b1
libgspell-1-doc 1.12.0-1
libgusb-doc 0.3.10-1
libvips-doc 8.14.1-3+deb12u3
"""),
    *_deb("docbook", """
docbook-xsl-doc-html 1.79.1-1
mutt 2.2.12-0.1~deb12u1
dblatex-doc 0.3.12py3-2
systemtap-doc 4.8-2
gimp-help-en 2.10.34-2
"""),
    *_deb("man", """
ansible-core 2.14.18-0+deb12u2
apache2-utils 2.4.68-1~deb12u1
apt 2.6.1
aria2 1.36.0-1
at 3.2.5-1+b1
avahi-utils 0.8-10+deb12u1
bash 5.2.15-2+b13
bind9-dnsutils 1:9.18.49-1~deb12u1
binutils 2.40-2
borgbackup 1.2.4-1
btrfs-progs 6.2-1+deb12u2
bzip2 1.0.8-5+b1
coreutils 9.1-1
cron 3.0pl1-162
cryptsetup-bin 2:2.6.1-4~deb12u2
cups-client 2.4.2-3+deb12u9
curl 7.88.1-10+deb12u15
debhelper 13.11.4
devscripts 2.23.4+deb12u2
diffutils 1:3.8-4
dpkg 1.21.23
duplicity 0.8.22-1+b3
e2fsprogs 1.47.0-2+b2
ethtool 1:6.1-1
ffmpeg 7:5.1.9-0+deb12u1
findutils 4.9.0-4
fish 3.6.0-3.1+deb12u1
flac 1.4.2+ds-2
gnupg 2.2.40-1.1+deb12u2
gphoto2 2.5.28-2
grep 3.8-5
gzip 1.12-1
haproxy 2.6.12-1+deb12u3
hdparm 9.65+ds-1
htop 3.2.2-2
iproute2 6.1.0-3
iptables 1.8.9-2
iputils-ping 3:20221126-1+deb12u1
iw 5.19-1
jq 1.6-2.1+deb12u2
lame 3.100-6
less 590-2.1~deb12u2
libimage-exiftool-perl 12.57+dfsg-1
logrotate 3.21.0-1
lsof 4.95.0-1
lvm2 2.03.16-2
lynx 2.9.0dev.12-1
make 4.3-4.1
mdadm 4.2-5
mpv 0.35.1-4
mtr-tiny 0.95-1
mutt 2.2.12-0.1~deb12u1
nano 7.2-1+deb12u1
neomutt 20220429+dfsg1-4.1
netcat-openbsd 1.219-1
nftables 1.0.6-2+deb12u2
nmap 7.93+dfsg1-1
openssh-client 1:9.2p1-2+deb12u10
openssl 3.0.20-1~deb12u2
openvpn 2.6.14-0+deb12u2
parted 3.5-3
patch 2.7.6-7
poppler-utils 22.12.0-2+deb12u2
procps 2:4.0.2-3
psmisc 23.6-1
qpdf 11.3.0-1+deb12u1
quilt 0.67+really0.66-1
redis-tools 5:7.0.15-1~deb12u7
restic 0.14.0-1+b5
rsync 3.2.7-1+deb12u6
screen 4.9.0-4
sed 4.9-1+deb12u1
smartmontools 7.3-1+b1
socat 1.7.4.4-2
sox 14.4.2+git20190427-3.5
strace 6.1-0.1
sudo 1.9.13p3-1+deb12u4
tar 1.34+dfsg-1.2+deb12u1
tcpdump 4.99.3-1
tmux 3.3a-3
traceroute 1:2.1.2-1
ufw 0.36.2-1
unzip 6.0-28
util-linux 2.38.1-5+deb12u3
vorbis-tools 1.4.2-1+b1
w3m 0.5.3+git20230121-2
wget 1.21.3-1+deb12u1
whois 5.5.17
wireguard-tools 1.0.20210914-1+b1
xz-utils 5.4.1-1+deb12u1
zip 3.0-13
zsh 5.9-4+b15
"""),
    *_deb("javadoc", """
libcommons-io-java-doc 2.11.0-2
junit4-doc 4.13.2-3
libcommons-collections4-java-doc 4.2-1
libjsoup-java-doc 1.15.3-1
libcommons-codec-java-doc 1.15-1
libcommons-math3-java-doc 3.6.1-3
libjsch-java-doc 0.1.55-1
libcommons-validator-java-doc 1:1.7-1
libjaxen-java-doc 1.1.6-4
liblog4j1.2-java-doc 1.2.17-11
"""),
    *_deb("doxygen", """
libxerces-c-doc 3.2.4+debian-1
libglfw3-doc 3.3.8-1
libjsoncpp-doc 1.9.5-4
libssh-doc 0.10.6-0+deb12u2
dbus-1-doc 1.14.10-1~deb12u1
libopus-doc 1.3.1-3
libflac-doc 1.4.2+ds-2
libmsgpack-doc 4.0.0-3
libcppunit-doc 1.15.1-4
libxmlsec1-doc 1.2.37-2
libsigc++-2.0-doc 2.12.0-1
libcairomm-1.0-doc 1.14.4-2
libglibmm-2.4-doc 2.66.5-2
libgtkmm-3.0-doc 3.24.7-1
libsfml-doc 2.5.1+dfsg-2
libbullet-doc 3.24+dfsg-2
libassimp-doc 5.2.5~ds0-1
libgeos-doc 3.11.1-1
"""),
]

_DOC_SKIP = ("genindex", "search", "py-modindex", "modindex", "_static/", "_sources/", "_modules/", "_images/",
             "_downloads/", "changelog", "changes", "history", "release", "whatsnew", "whats_new", "news")
# Javadoc's and Doxygen's index, usage and source pages
_API_SKIP = ("class-use/", "src-html/", "package-", "index-", "allclasses", "allpackages", "overview-", "deprecated",
             "help-doc", "serialized-form", "constant-values", "globals", "functions_", "files", "annotated",
             "hierarchy", "namespacemembers", "dir_", "_source", "todo", "bug", "pages")


def is_forbidden_source(source: Source) -> bool:
    from build_model.docdata import is_forbidden

    return is_forbidden(source.name)


def fetch(source: Source, cache: Path, log=print) -> Path:
    """The folder ``source`` is unpacked into (under ``cache``), fetching and unpacking it first if needed."""
    refuse_forbidden(source.name)
    dest = cache / "pkgs" / source.key
    if (dest / ".done").is_file():
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    log(f"fetching {source.origin} package {source.name} {source.version}")
    download_and_unpack(source.origin, source.name, source.version, dest)
    if source.generator == "man":
        _render_man(dest, source)
    (dest / ".done").write_text(f"{source.name} {source.version}\n")
    return dest


def download_and_unpack(origin: str, name: str, version: str, dest: Path) -> None:
    """``apt-get download NAME=VERSION`` and ``dpkg -x`` (``origin`` "deb"), or ``npm pack NAME@VERSION`` and its
    tarball (``"npm"``), into ``dest``, which must not exist: the package is unpacked in a temporary folder beside
    it and renamed once complete, so an interrupted fetch leaves nothing that looks done. ``FetchError`` names the
    package and what the tool said. Both the training data and ``python -m bench docs`` fetch through this."""
    what = f"{name} {version}"
    if origin not in ("deb", "npm"):
        raise FetchError(f"{what}: unknown origin {origin!r} (deb or npm)")
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=".fetch-") as tmp:
        work = Path(tmp).resolve()  # the tools run in it: a relative cache path must not be read from there
        unpacked = work / "unpacked"
        unpacked.mkdir()
        if origin == "deb":
            _run(["apt-get", "download", f"{name}={version}"], what, work,
                 hint="the package index may be older than the pinned version: `apt-get update` (as root) "
                      "reads it again; a version the mirror has since replaced is on snapshot.debian.org")
            archives = sorted(work.glob("*.deb"))
        else:
            _run(["npm", "pack", f"{name}@{version}", "--silent"], what, work)
            archives = sorted(work.glob("*.tgz"))
        if len(archives) != 1:
            raise FetchError(f"{what}: the download left {len(archives)} archives in {work}")
        if origin == "deb":
            _run(["dpkg", "-x", str(archives[0]), str(unpacked)], what, work)
        else:
            try:
                with tarfile.open(archives[0]) as tar:
                    tar.extractall(unpacked, filter="data")
            except (tarfile.TarError, OSError) as e:
                raise FetchError(f"{what}: cannot unpack {archives[0].name}: {e}") from None
        os.replace(unpacked, dest)


def _run(cmd: list[str], what: str, cwd: Path, hint: str = "") -> None:
    try:
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False, timeout=600)
    except FileNotFoundError as e:
        raise FetchError(f"{what}: {cmd[0]} is not installed ({e})") from None
    except subprocess.TimeoutExpired:
        raise FetchError(f"{what}: `{' '.join(cmd)}` took more than 10 minutes") from None
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        said = " / ".join(tail)
        advice = f" ({hint})" if hint and "was not found" in said else ""
        raise FetchError(f"{what}: `{' '.join(cmd)}` failed (exit {done.returncode}): {said}{advice}")


def _render_man(dest: Path, source: Source) -> None:
    """Every man page of sections 1, 5 and 8 rendered to ``rendered/<page>.txt`` (80 columns, no overstrike)."""
    out = dest / "rendered"
    out.mkdir(exist_ok=True)
    for page in sorted((dest / "usr/share/man").glob("man[158]/*")):
        if not page.is_file():
            continue
        raw = page.read_bytes()
        if page.suffix == ".gz":
            raw = gzip.decompress(raw)
        if raw.startswith(b".so "):  # an alias of another page
            continue
        done = subprocess.run(["groff", "-t", "-man", "-Tutf8", "-P-cbou", "-rLL=80n", "-rLT=80n", "-rHY=0"], input=raw,
                              capture_output=True, check=False, timeout=120)
        if done.returncode == 0 and done.stdout.strip():
            name = page.name[:-3] if page.suffix == ".gz" else page.name
            (out / f"{name}.txt").write_bytes(done.stdout)


def source_files(source: Source, root: Path) -> list[Path]:
    """The files of an unpacked package that are read for questions, in a stable order."""
    if source.generator == "man":
        return sorted((root / "rendered").glob("*.txt"))
    if source.generator == "markdown":
        files = [p for p in root.rglob("*") if p.suffix.lower() in (".md", ".markdown") and p.is_file()]
        return sorted(p for p in files if not _skipped(p.relative_to(root)) and "node_modules" not in p.parts)
    files = [p for p in root.rglob("*") if p.suffix.lower() in (".html", ".htm") and p.is_file()]
    skip = _DOC_SKIP + _API_SKIP if source.generator in ("javadoc", "doxygen") else _DOC_SKIP
    return sorted(p for p in files if not _skipped(p.relative_to(root), skip))


def _skipped(rel: Path, skip: tuple[str, ...] = _DOC_SKIP) -> bool:
    text = str(PurePosixPath(rel)).lower()
    name = rel.name.lower()
    return (any(s in text for s in skip if s.endswith("/"))
            or any(name.startswith(s) for s in skip if not s.endswith("/"))
            or name.startswith(("license", "licence", "copying", "contributing", "code_of_conduct", "security")))
