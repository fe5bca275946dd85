//! A paged list as a stream of its pages, each asked for when the one before has been taken, by the
//! `pagination.next` link the server gave; it ends after the last page, or after the first error.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;
use serde::de::DeserializeOwned;

use crate::client::{Answer, Client};
use crate::error::Result;

type PendingPage<T> = Pin<Box<dyn Future<Output = Result<Answer<Vec<T>>>> + Send>>;

/// The pages of a list, from the one first asked for to the last. A `Stream` of
/// `Result<Answer<Vec<T>>>`; [`Pages::all`] gathers every record.
#[must_use = "a stream does nothing until it is polled"]
pub struct Pages<T> {
    client: Client,
    /// The target of the page to ask for next; `None` once the last one (or an error) came.
    next: Option<String>,
    pending: Option<PendingPage<T>>,
    records: PhantomData<fn() -> T>,
}

impl<T> std::fmt::Debug for Pages<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pages").field("next", &self.next).finish_non_exhaustive()
    }
}

impl Client {
    /// The pages of the list whose first page `target` (a path and query) asks for.
    pub fn pages<T: DeserializeOwned + Send + 'static>(&self, target: String) -> Pages<T> {
        Pages { client: self.clone(), next: Some(target), pending: None, records: PhantomData }
    }
}

impl<T: DeserializeOwned + Send + 'static> Pages<T> {
    /// Every record of every page, in order; the first error stops it.
    pub async fn all(mut self) -> Result<Vec<T>> {
        let mut records = Vec::new();
        while let Some(page) = std::future::poll_fn(|cx| Pin::new(&mut self).poll_next(cx)).await {
            records.extend(page?.data);
        }
        Ok(records)
    }
}

impl<T: DeserializeOwned + Send + 'static> Stream for Pages<T> {
    type Item = Result<Answer<Vec<T>>>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        let pending = match &mut this.pending {
            Some(pending) => pending,
            None => {
                let Some(target) = this.next.take() else { return Poll::Ready(None) };
                let client = this.client.clone();
                this.pending.insert(Box::pin(async move { client.get::<Vec<T>>(&target).await }))
            }
        };
        let page = match pending.as_mut().poll(cx) {
            Poll::Ready(page) => page,
            Poll::Pending => return Poll::Pending,
        };
        this.pending = None;
        if let Ok(answer) = &page {
            this.next = answer.pagination.as_ref().and_then(|p| p.next.clone());
        }
        Poll::Ready(Some(page))
    }
}
