# recall-operator image: `recall run` as a non-root user.
# Stage 1 builds a wheel; stage 2 installs only it and its dependencies.
FROM python:3.11-slim-bookworm AS build
WORKDIR /src
COPY pyproject.toml README.md ./
# Only the operator's package, the one its wheel holds (pyproject.toml's
# packages.find); the dev tooling beside it (recall_operator_dev: the local
# control plane, its PKI, the demo and benchmarks) is a distribution of its own
# (dev/pyproject.toml) and never enters this build.
COPY operator/recall_operator ./operator/recall_operator
RUN pip install --no-cache-dir build==1.2.2 \
    && python -m build --wheel --outdir /dist

FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    RECALL_MEMORY_PATH=/var/lib/recall/memory.sqlite3
COPY --from=build /dist /dist
# The same versions as CI and `make venv` (scripts/lock.sh writes them).
COPY constraints.txt /dist/constraints.txt
RUN pip install --no-cache-dir -c /dist/constraints.txt /dist/*.whl \
    && rm -rf /dist \
    && useradd --system --uid 65532 --home-dir /var/lib/recall --create-home recall
USER 65532:65532
WORKDIR /var/lib/recall
VOLUME ["/var/lib/recall"]
# 8080: metrics and health probes; 9093 is Alertmanager's, so the bridge takes 9094.
EXPOSE 8080 9094
ENTRYPOINT ["recall"]
CMD ["run", "--all-namespaces", "--metrics-port", "8080"]
