"""The local control plane's PKI, made the way controller-runtime's envtest makes it.

One CA signs the API server's serving certificate (for loopback and the
in-cluster Service names) and a client certificate per user, whose groups are
its Organization names (``admin`` and ``kwok`` in ``system:masters``); the
service-account tokens are signed with a key of their own. ECDSA P-256, valid
ten years: the cluster is local and short-lived, never exposed.
"""

from __future__ import annotations

import base64
import datetime as dt
import ipaddress
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

__all__ = ["Pki", "kubeconfig"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def _write_private(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    path.chmod(0o600)


def _key_usage(signs_certificates: bool) -> x509.KeyUsage:
    """Signatures only; the CA also signs certificates and revocation lists."""
    return x509.KeyUsage(
        digital_signature=True, content_commitment=False, key_encipherment=False, data_encipherment=False,
        key_agreement=False, key_cert_sign=signs_certificates, crl_sign=signs_certificates,
        encipher_only=False, decipher_only=False,
    )


@dataclass
class Pki:
    """The control plane's keys and certificates, made once under `directory`."""

    directory: Path
    # The serving certificate also names the first address of this range: the
    # in-cluster `kubernetes` Service's, which Pods dial.
    service_ip_range: str

    def path(self, name: str) -> Path:
        return self.directory / name

    def ensure(self) -> None:
        """Create the CA, serving, client and service-account keys once."""
        self.directory.mkdir(parents=True, exist_ok=True)
        if self.path("done").exists():
            return

        def new_key() -> ec.EllipticCurvePrivateKey:
            return ec.generate_private_key(ec.SECP256R1())

        def key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
            return key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )

        now = dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=1)
        until = now + dt.timedelta(days=3650)

        ca_key = new_key()
        ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "recall-local-ca")])
        ca_cert = (
            x509.CertificateBuilder()
            .subject_name(ca_name)
            .issuer_name(ca_name)
            .public_key(ca_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now)
            .not_valid_after(until)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(_key_usage(signs_certificates=True), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256())
        )
        _write_private(self.path("ca.key"), key_pem(ca_key))
        self.path("ca.crt").write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))

        def issue(name: str, common_name: str, orgs: Sequence[str] = (), server: bool = False) -> None:
            key = new_key()
            attrs = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in orgs]
            attrs.append(x509.NameAttribute(NameOID.COMMON_NAME, common_name))
            builder = (
                x509.CertificateBuilder()
                .subject_name(x509.Name(attrs))
                .issuer_name(ca_name)
                .public_key(key.public_key())
                .serial_number(x509.random_serial_number())
                .not_valid_before(now)
                .not_valid_after(until)
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(_key_usage(signs_certificates=False), critical=True)
                .add_extension(
                    x509.ExtendedKeyUsage(
                        [ExtendedKeyUsageOID.SERVER_AUTH] if server else [ExtendedKeyUsageOID.CLIENT_AUTH]
                    ),
                    critical=False,
                )
                .add_extension(
                    x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
                )
            )
            if server:
                # The first host of the range: the API server's own Service address (typeshed calls
                # it a bare address base class; it is an IPv4Address or IPv6Address).
                service_ip = cast(IPAddress, next(ipaddress.ip_network(self.service_ip_range).hosts()))
                builder = builder.add_extension(
                    x509.SubjectAlternativeName(
                        [
                            x509.DNSName("localhost"),
                            x509.DNSName("kubernetes"),
                            x509.DNSName("kubernetes.default"),
                            x509.DNSName("kubernetes.default.svc"),
                            x509.DNSName("kubernetes.default.svc.cluster.local"),
                            x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                            x509.IPAddress(ipaddress.ip_address("::1")),
                            x509.IPAddress(service_ip),
                        ]
                    ),
                    critical=False,
                )
            cert = builder.sign(ca_key, hashes.SHA256())
            _write_private(self.path(f"{name}.key"), key_pem(key))
            self.path(f"{name}.crt").write_bytes(cert.public_bytes(serialization.Encoding.PEM))

        issue("serving", "kube-apiserver", server=True)
        issue("admin", "admin", orgs=["system:masters"])
        issue("kube-controller-manager", "system:kube-controller-manager")
        issue("kube-scheduler", "system:kube-scheduler")
        issue("kwok", "kwok", orgs=["system:masters"])

        sa_key = new_key()
        _write_private(self.path("sa.key"), key_pem(sa_key))
        self.path("sa.pub").write_bytes(
            sa_key.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )
        self.path("done").write_text("ok\n")


def kubeconfig(server: str, pki: Pki, user: str) -> str:
    """A kubeconfig for `user`, its client certificate and key inline."""
    def b64(name: str) -> str:
        return base64.b64encode(pki.path(name).read_bytes()).decode()

    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": "recall-local", "cluster": {"server": server, "certificate-authority-data": b64("ca.crt")}}
        ],
        "users": [
            {
                "name": user,
                "user": {
                    "client-certificate-data": b64(f"{user}.crt"),
                    "client-key-data": b64(f"{user}.key"),
                },
            }
        ],
        "contexts": [{"name": "recall-local", "context": {"cluster": "recall-local", "user": user}}],
        "current-context": "recall-local",
    }
    return json.dumps(config, indent=2) + "\n"
