# Home Assistant add-on image: a static musl binary on the Supervisor's base image.
ARG BUILD_FROM=ghcr.io/home-assistant/amd64-base:3.20

FROM rust:1-alpine AS build
RUN apk add --no-cache musl-dev
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src ./src
COPY tests ./tests
RUN cargo build --locked --release --bin homeclaw

FROM ${BUILD_FROM}
COPY --from=build /src/target/release/homeclaw /usr/bin/homeclaw
COPY addon/run.sh /run.sh
CMD ["/run.sh"]
