//! Pages served beside the API on the same listener: the dashboard (`tapster-dashboard`), which this
//! crate knows only as [`Pages`], a service of the edge's that claims some paths. Their requests
//! pass the same edge as the API's (`tapster-edge`: the target and header limits, the time budget,
//! the trusted proxies) and are then handed to the pages whole: they read their own forms and render
//! their own answers, refusals included. They get no CORS headers, and no path of the API's is ever
//! theirs (nothing under `/v1`, none of its public routes, `/metrics`), so a session cookie never
//! opens the API and an API key never opens a page. Their requests are counted and logged with the
//! API's, under one route label.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Instant;

use hyper::body::Incoming;
use hyper::{Method, Request, Response};
use tapster_edge::{Answer, Refusal, Service};

use super::App;
use crate::response::Body;

/// HTML pages served beside the API: a service of the edge's for the paths it claims.
pub trait Pages: Service + std::fmt::Debug {
    /// Whether `path` is one of the pages'. A path the API answers stays the API's whatever this
    /// says.
    fn claims(&self, path: &str) -> bool;
}

impl App {
    /// The pages, when `path` is theirs rather than the API's: a path the API answers is never the
    /// pages'. The API is asked first: a `/v1` path is known by its prefix, and the endpoint table
    /// refuses any other path by its templates' literal prefixes, so neither walks the pages' table.
    pub(crate) fn pages_for(&self, path: &str) -> Option<&Arc<dyn Pages>> {
        self.pages().filter(|pages| !App::owns(path) && pages.claims(path))
    }

    /// Hands a request to the pages, and counts their answer when it is made.
    pub(crate) fn answer_page(
        self: Arc<Self>,
        pages: Arc<dyn Pages>,
        request: Request<Incoming>,
        caller: IpAddr,
    ) -> Answer {
        let started = Instant::now();
        let (method, path) = (request.method().clone(), request.uri().path().to_owned());
        match pages.call(request, caller) {
            Answer::Ready(response) => {
                self.answered_page(&method, &path, caller, response.status(), started);
                Answer::Ready(response)
            }
            Answer::Later(answer) => Answer::Later(Box::pin(async move {
                let response = answer.await;
                self.answered_page(&method, &path, caller, response.status(), started);
                response
            })),
        }
    }

    /// Hands a refusal of the edge on one of the pages' paths to the pages to render, and counts it.
    pub(crate) fn refused_page(
        &self,
        pages: &dyn Pages,
        request: &Request<Incoming>,
        caller: IpAddr,
        refusal: Refusal,
    ) -> Response<Body> {
        let started = Instant::now();
        let response = pages.refused(request, caller, refusal);
        let method: &Method = request.method();
        self.answered_page(method, request.uri().path(), caller, response.status(), started);
        response
    }
}
