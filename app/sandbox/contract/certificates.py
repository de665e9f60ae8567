"""The contract of the certificates Admin API (mutual TLS): its bodies and queries, in the hosted shapes."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.sandbox.contract.responses import Strict

MAX_PEM = 64 * 1024  # characters of one certificate's PEM: a CA certificate is a few kilobytes
MAX_NAME = 200
MAX_TOGGLE = 10  # certificates one activation or deactivation names, as the hosted service allows


class CertificateUpload(Strict):
    """The body of `POST .../certificates`: the PEM and an optional name (upload does not activate)."""

    certificate: str = Field(min_length=1, max_length=MAX_PEM)
    name: str | None = Field(default=None, max_length=MAX_NAME)


class CertificateRename(Strict):
    """The body of `POST .../certificates/{id}`: only the name can change."""

    name: str = Field(max_length=MAX_NAME)


class CertificateToggle(Strict):
    """The body of `POST .../certificates/activate` and `.../deactivate`: all of them change, or none."""

    certificate_ids: list[Annotated[str, Field(min_length=1, max_length=64)]] = Field(
        min_length=1, max_length=MAX_TOGGLE
    )


class CertificateListQuery(BaseModel):
    """`GET .../certificates?limit=&after=&order=`, newest first unless `order=asc`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    limit: int = Field(default=20, ge=1, le=100)
    after: str | None = Field(default=None, min_length=1, max_length=64)
    order: Literal["asc", "desc"] = "desc"


class CertificateGetQuery(BaseModel):
    """`GET .../certificates/{id}?include[]=content`: the PEM is sent only when asked for."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    include: Literal["content"] | None = Field(default=None, alias="include[]")
