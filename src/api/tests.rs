use super::*;

#[test]
fn a_failed_command_says_what_it_did_before_it_failed() {
    let mut failed = CommandError::new(ErrorKind::LlmUnavailable, "no model answered");
    failed.trace = vec!["Home Assistant's recogniser: no reading".into()];
    let error = ApiError::from(failed);
    assert_eq!(error.status, StatusCode::GATEWAY_TIMEOUT);
    let body = error.body();
    assert_eq!(body["error"]["code"], "llm_unavailable", "{body}");
    assert_eq!(
        body["trace"][0], "Home Assistant's recogniser: no reading",
        "{body}"
    );
    // An error with nothing done before it has no trace at all.
    let body = ApiError::from(CommandError::new(ErrorKind::Busy, "busy")).body();
    assert!(body.get("trace").is_none(), "{body}");
}
