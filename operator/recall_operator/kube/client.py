"""One way to reach the API server, for every part of the operator that talks to it."""

from __future__ import annotations

import os
from typing import Any


def api_client(pool_size: int | None = None) -> Any:
    """In a pod the ServiceAccount; elsewhere the kubeconfig that $KUBECONFIG names now.

    The kubernetes library reads $KUBECONFIG once, when first imported; a
    process that sets it later (the demo, the tests) would silently get
    ~/.kube/config, so the variable is read here, at call time.
    """
    from kubernetes import client, config

    configuration = client.Configuration()
    try:
        config.load_incluster_config(client_configuration=configuration)
    except config.ConfigException:
        first = (os.environ.get("KUBECONFIG") or "").split(os.pathsep)[0] or None
        config.load_kube_config(config_file=first, client_configuration=configuration)
    if pool_size:
        configuration.connection_pool_maxsize = pool_size
    return client.ApiClient(configuration)
