# The app's image: a static musl binary on Home Assistant's base image. Built per architecture
# on a public CI by .github/workflows/images.yaml (Home Assistant's builder actions, native
# amd64 and aarch64 runners) and pulled by the Supervisor (config.yaml's `image`), so nothing
# compiles on the household's box. scripts/container-build.sh runs the same build commands
# where no Docker engine is available.
FROM rust:1-alpine AS build
RUN apk add --no-cache musl-dev
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src ./src
COPY tests ./tests
RUN cargo build --locked --release --bin homeclaw

# Multi-arch; the base image the Supervisor itself defaults to (3.23 as of 2026).
FROM ghcr.io/home-assistant/base:3.23
LABEL \
  io.hass.type="app" \
  io.hass.name="HomeClaw" \
  io.hass.description="An LLM agent for your home that only answers after the action really happened" \
  io.hass.url="https://github.com/homeclaw/homeclaw"
COPY --from=build /src/target/release/homeclaw /usr/bin/homeclaw
COPY addon/run.sh /run.sh
CMD ["/run.sh"]
