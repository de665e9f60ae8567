"""A test CA and a client certificate it issued, made on this machine for trying mutual TLS offline: the CA's
certificate to upload, the client's certificate and key for a profile. Private files (0600 in a 0700 folder);
the CA's own key is never written, so nothing else can be issued by it later.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path

from app.common.fileio import write_atomically
from app.common.private import private_dir

VALID_DAYS = 365


@dataclass(frozen=True)
class TrialPki:
    """The files made: upload `ca_cert`; give a profile `client_cert` and `client_key`."""

    __test__ = False  # a name pytest would otherwise collect
    ca_cert: Path
    client_cert: Path
    client_key: Path


def make_trial_pki(folder: Path, name: str = "Service Console test") -> TrialPki:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.UTC)
    stamp = now.strftime("%Y%m%d-%H%M%S")
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{name} CA {stamp}")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )
        .sign(ca_key, hashes.SHA256())
    )
    client_key = ec.generate_private_key(ec.SECP256R1())
    client = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{name} client {stamp}")]))
        .issuer_name(ca_name)
        .public_key(client_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    private_dir(folder)
    made = TrialPki(
        folder / f"test-ca-{stamp}.pem", folder / f"client-{stamp}.pem", folder / f"client-{stamp}.key"
    )
    pem = serialization.Encoding.PEM
    write_atomically(made.ca_cert, ca.public_bytes(pem).decode())
    write_atomically(made.client_cert, client.public_bytes(pem).decode())
    key_bytes = client_key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    write_atomically(made.client_key, key_bytes.decode())  # 0600: a private key
    return made
