//! The agent's view of the home, behind a trait so the loop core runs without sockets.
//!
//! [`LiveHome`] is the real one: the live registry plus the Home Assistant client.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::Value;

use crate::ha::connection::HaError;
use crate::ha::protocol::HaErrorCode;
use crate::ha::recognise::{Handled, Recognition, parse_debug};
use crate::ha::registry::{Entity, Registry};
use crate::ha::services::{CallError, CheckedCall};
use crate::ha::{HaClient, LiveRegistry};

pub trait Home: Send + Sync {
    /// Runs `f` on the current registry.
    fn read(&self, f: &mut dyn FnMut(&Registry));

    /// Performs a validated service call.
    fn call_service<'a>(&'a self, call: &'a CheckedCall)
    -> BoxFuture<'a, Result<Value, CallError>>;

    /// Reads through a validated service that answers (to-do items, calendar events,
    /// forecasts): Home Assistant's response, keyed by entity id.
    fn read_service<'a>(&'a self, call: &'a CheckedCall)
    -> BoxFuture<'a, Result<Value, CallError>>;

    /// Waits until `check` holds for the entity (driven by state changes, not polling), at most
    /// `timeout`. Returns whether it held, and the entity as last seen.
    fn wait_for<'a>(
        &'a self,
        entity_id: &'a str,
        timeout: Duration,
        check: &'a (dyn Fn(&Entity) -> bool + Send + Sync),
    ) -> BoxFuture<'a, (bool, Option<Entity>)>;

    /// Home Assistant's recognition of a sentence (nothing run), within its time budget; past
    /// it, the recognition still on its way.
    fn recognise<'a>(
        &'a self,
        _sentence: &'a str,
        _language: &'a str,
        _device_id: Option<&'a str>,
    ) -> BoxFuture<'a, Recognised> {
        Box::pin(async { Recognised::Now(None) })
    }

    /// Has Home Assistant's own agent run a sentence HomeClaw does not run itself, as said to
    /// `device_id` (a satellite) where Home Assistant takes it.
    fn hand_off<'a>(
        &'a self,
        _text: &'a str,
        _language: &'a str,
        _device_id: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Handled, String>> {
        Box::pin(async { Err("no Home Assistant agent to hand to".to_owned()) })
    }
}

/// What Home Assistant's recogniser made of a sentence.
pub enum Recognised {
    /// Within the budget: the recognition, or `None` (nothing recognised, or no recogniser).
    Now(Option<Recognition>),
    /// The budget passed with the sentence still with Home Assistant: its recognition when it
    /// comes (`None`: nothing, or not within the request's timeout). The run takes it if it
    /// comes before the model's first answer; dropping it gives it up.
    Late(BoxFuture<'static, Option<Recognition>>),
}

impl Recognised {
    /// The recognition made within the budget, if any.
    pub fn now(self) -> Option<Recognition> {
        match self {
            Self::Now(recognition) => recognition,
            Self::Late(_) => None,
        }
    }
}

impl std::fmt::Debug for Recognised {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Now(recognition) => f.debug_tuple("Now").field(recognition).finish(),
            Self::Late(_) => f.write_str("Late"),
        }
    }
}

/// A recognition that missed its budget (with the words it read), and what following it
/// needs.
pub(crate) struct LateRecognition {
    pub(crate) recognition: BoxFuture<'static, Option<(Recognition, String)>>,
    pub(crate) asked: RecogniserAsk,
}

/// How the recogniser was asked: the language tag, the language HomeClaw answers in, and
/// when.
pub(crate) struct RecogniserAsk {
    pub(crate) tag: String,
    pub(crate) lang: Option<crate::lang::Lang>,
    pub(crate) at: std::time::Instant,
}

/// Reads the registry through a [`Home`] and returns a value.
pub fn with_registry<R>(home: &dyn Home, f: impl FnOnce(&Registry) -> R) -> R {
    let mut f = Some(f);
    let mut out = None;
    home.read(&mut |registry| {
        if let Some(f) = f.take() {
            out = Some(f(registry));
        }
    });
    match out {
        Some(out) => out,
        // `read` must call its closure; a Home that does not is a bug we want loudly.
        None => unreachable!("Home::read did not run its closure"),
    }
}

pub struct LiveHome {
    pub client: HaClient,
    pub registry: LiveRegistry,
    recogniser: Recogniser,
}

/// The recogniser's state: its budget, and what this Home Assistant showed it can do.
struct Recogniser {
    budget: Option<Duration>,
    /// This Home Assistant has no debug command (older than 2023.x): not asked again.
    missing: AtomicBool,
    /// Languages whose sentences Home Assistant was asked to load.
    prepared: Mutex<HashSet<String>>,
    /// Recognitions in flight: a few at a time. A burst of commands beyond them goes on as
    /// with a slow Home Assistant: each asks in its turn while the model is asked, and takes
    /// the recognition if it comes first (or the model fails), instead of going without it.
    in_flight: std::sync::Arc<tokio::sync::Semaphore>,
}

/// How many recognitions may be in flight at once.
const MAX_IN_FLIGHT: usize = 2;

impl LiveHome {
    /// A home on the live registry, with Home Assistant's recogniser asked within `budget`
    /// (`None`: never asked).
    pub fn new(client: HaClient, registry: LiveRegistry, budget: Option<Duration>) -> Self {
        Self {
            client,
            registry,
            recogniser: Recogniser {
                budget,
                missing: AtomicBool::new(false),
                prepared: Mutex::new(HashSet::new()),
                in_flight: std::sync::Arc::new(tokio::sync::Semaphore::new(MAX_IN_FLIGHT)),
            },
        }
    }

    /// A recognition asked when one of those in flight ends, as a late one: the command goes
    /// on without waiting (the model is asked), and takes it if it comes first, or if the
    /// model fails. Dropped with the command, it never queues work for no one.
    fn in_its_turn(
        &self,
        sentence: &str,
        language: &str,
        device_id: Option<&str>,
        waited: Duration,
    ) -> Recognised {
        let in_flight = self.recogniser.in_flight.clone();
        let client = self.client.clone();
        let (sentence, language) = (sentence.to_owned(), language.to_owned());
        let device_id = device_id.map(str::to_owned);
        let rest = self.client.request_timeout().saturating_sub(waited);
        Recognised::Late(Box::pin(async move {
            let started = std::time::Instant::now();
            let _permit = tokio::time::timeout(rest, in_flight.acquire_owned())
                .await
                .ok()?
                .ok()?;
            let mut pending = client
                .recognition(&sentence, &language, device_id.as_deref())
                .await
                .ok()?;
            let result = pending.within(rest.saturating_sub(started.elapsed())).await;
            result.ok().as_ref().and_then(parse_debug)
        }))
    }

    /// A recognition that failed: nothing recognised (a Home Assistant without the recogniser
    /// is not asked again).
    fn not_recognised(&self, error: HaError) -> Option<Recognition> {
        match error {
            HaError::Api {
                code: HaErrorCode::UnknownCommand,
                ..
            } => {
                tracing::info!(
                    "Home Assistant has no sentence recogniser to ask; going on without it"
                );
                self.recogniser.missing.store(true, Ordering::Relaxed);
            }
            e => tracing::debug!("Home Assistant's recogniser: {e}"),
        }
        None
    }

    /// Loads a language's sentences in Home Assistant in the background, once, so that the
    /// first command in it is recognised within the budget.
    pub fn prepare(&self, language: &str) {
        if self.recogniser.budget.is_some() && self.first_sight(language) {
            let client = self.client.clone();
            let language = language.to_owned();
            tokio::spawn(async move {
                if let Err(e) = client.prepare_language(&language).await {
                    tracing::debug!("Home Assistant could not prepare {language}: {e}");
                }
            });
        }
    }

    /// Whether this language is new to the recogniser (and from now on, not).
    fn first_sight(&self, language: &str) -> bool {
        self.recogniser
            .prepared
            .lock()
            .map(|mut p| p.insert(language.trim().to_ascii_lowercase()))
            .unwrap_or(false)
    }
}

/// How long the first command in a language waits for Home Assistant to load its sentences
/// (once per language; a few hundred ms on a 2-core machine).
const PREPARE_WAIT: Duration = Duration::from_secs(3);

impl Home for LiveHome {
    fn read(&self, f: &mut dyn FnMut(&Registry)) {
        self.registry.read(|r| f(r));
    }

    fn call_service<'a>(
        &'a self,
        call: &'a CheckedCall,
    ) -> BoxFuture<'a, Result<Value, CallError>> {
        Box::pin(call.execute(&self.client))
    }

    fn read_service<'a>(
        &'a self,
        call: &'a CheckedCall,
    ) -> BoxFuture<'a, Result<Value, CallError>> {
        Box::pin(call.read(&self.client))
    }

    fn wait_for<'a>(
        &'a self,
        entity_id: &'a str,
        timeout: Duration,
        check: &'a (dyn Fn(&Entity) -> bool + Send + Sync),
    ) -> BoxFuture<'a, (bool, Option<Entity>)> {
        Box::pin(async move {
            let ok = self
                .registry
                .wait_until(timeout, |r| r.get(entity_id).is_some_and(check))
                .await;
            (ok, self.registry.read(|r| r.get(entity_id).cloned()))
        })
    }

    fn recognise<'a>(
        &'a self,
        sentence: &'a str,
        language: &'a str,
        device_id: Option<&'a str>,
    ) -> BoxFuture<'a, Recognised> {
        Box::pin(async move {
            let Some(budget) = self.recogniser.budget else {
                return Recognised::Now(None);
            };
            if self.recogniser.missing.load(Ordering::Relaxed) {
                return Recognised::Now(None);
            }
            // Busy with other commands' sentences: this one waits its turn within its budget
            // (asked alongside every command HomeClaw reads, a burst must not read worse), and
            // the time it waited is spent of that budget: the person never waits twice.
            let asked = std::time::Instant::now();
            let waiting =
                tokio::time::timeout(budget, self.recogniser.in_flight.clone().acquire_owned());
            let Ok(Ok(permit)) = waiting.await else {
                tracing::debug!("Home Assistant's recogniser is busy: asked in its turn");
                return self.in_its_turn(sentence, language, device_id, budget);
            };
            // In a language HomeClaw has no lexicon for, Home Assistant's recogniser is the only
            // deterministic reader (the alternative is the model, seconds away and in English):
            // it gets three times the budget (its closest partial match in Dutch takes up to
            // ~350 ms on 2 cores).
            let budget = if crate::lang::Lang::known(language).is_none() {
                budget * 3
            } else {
                budget
            };
            // The first sentence in a language waits for Home Assistant to load its sentences
            // and the home's names (once, a few hundred ms): otherwise it always misses the
            // budget.
            let budget = if self.first_sight(language) {
                let prepared =
                    tokio::time::timeout(PREPARE_WAIT, self.client.prepare_language(language))
                        .await;
                if !matches!(prepared, Ok(Ok(()))) {
                    tracing::debug!("Home Assistant did not prepare {language} in time");
                }
                PREPARE_WAIT
            } else {
                budget.saturating_sub(asked.elapsed())
            };
            let mut pending = match self.client.recognition(sentence, language, device_id).await {
                Ok(pending) => pending,
                Err(e) => return Recognised::Now(self.not_recognised(e)),
            };
            match pending.within(budget).await {
                Ok(result) => Recognised::Now(parse_debug(&result)),
                Err(HaError::Timeout { .. }) => {
                    // Still with Home Assistant, and still counted as in flight.
                    let rest = self.client.request_timeout().saturating_sub(budget);
                    Recognised::Late(Box::pin(async move {
                        let _permit = permit;
                        match pending.within(rest).await {
                            Ok(result) => parse_debug(&result),
                            Err(e) => {
                                tracing::debug!(
                                    "Home Assistant's recogniser, past its budget: {e}"
                                );
                                None
                            }
                        }
                    }))
                }
                Err(e) => Recognised::Now(self.not_recognised(e)),
            }
        })
    }

    fn hand_off<'a>(
        &'a self,
        text: &'a str,
        language: &'a str,
        device_id: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Handled, String>> {
        Box::pin(async move {
            self.client
                .converse(text, language, device_id)
                .await
                .map_err(|e| e.to_string())
        })
    }
}
