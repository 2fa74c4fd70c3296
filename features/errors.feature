@errors @spec-7
Feature: Errors
  Every refusal is the spec's error envelope: total and _embedded.errors with code, logref, message
  and links. Bodies must be JSON of an accepted media type, and every violation is reported at once.

  Background:
    Given I am the platform user

  Scenario: an error item carries its code, logref, message and links
    §7: error body: total, _embedded.errors, each with code, logref (a logref string), message and _links self and source.
    When I fetch a webhook that does not exist
    Then the request is refused as not found
    And the response field "total" is 1 (assumed: resource_values)
    And the response field "_embedded.errors.0.code" is present
    And the response field "_embedded.errors.0.message" is present
    And the response field "_embedded.errors.0.logref.logref" is present
    And the response field "_embedded.errors.0._links.self.href" is an absolute URL
    And the response field "_embedded.errors.0._links.source.href" is an absolute URL

  @spec-1
  Scenario: a request that accepts no JSON media type is refused as not acceptable, or Accept is ignored
    §7: Not Acceptable, on all endpoints; §1: response bodies are JSON.
    When I GET "/webhooks" accepting "text/csv"
    Then the Accept naming no JSON type is handled as the profile declares

  @spec-1
  Scenario: a body of an unsupported media type is refused as not acceptable
    §1, §5 item 2: requests set a Content-Type header naming a JSON API media type; §7: Not Acceptable, on all endpoints.
    When I POST "/webhooks" with content type "text/plain" and the body:
      """
      {"url": "{hook_url}"}
      """
    Then the request is refused as not acceptable

  @spec-1 @assumed @profile-request_media_types
  Scenario Outline: a JSON body is accepted as <media type>
    Given a card for the buyer
    When I POST "/transfers" with content type "<media type>" and the body:
      """
      {"source": "{card}", "merchant": "{fixture:merchant}", "amount": 700, "currency": "USD", "tags": {"conform_run": "{run_id}"}}
      """
    Then the request succeeds

    Examples: named by the spec, a server may take only one
      | media type               |
      | application/vnd.api+json |
      | application/vnd.json+api |

    Examples: accepted by the reference
      | media type                   |
      | application/hal+json         |
      | application/json; charset=utf-8 |

  Scenario: a body that is not JSON is refused as malformed
    §1: request and response bodies are JSON.
    When I POST "/transfers" with the body:
      """
      {"amount": 100,
      """
    Then the request is refused as malformed

  Scenario: a JSON array where an object is expected is refused as malformed
    §1: request bodies are JSON; §4.9: a Webhook is created from the body fields url, enabled, enabled_events, authentication.
    When I POST "/webhooks" with the body:
      """
      [{"url": "https://example.com/hooks"}]
      """
    Then the request is refused as malformed

  @assumed @profile-reference_rules
  Scenario: every violation of a request is reported, one error item each
    When I POST "/transfers" with the body:
      """
      {"currency": "USD", "amount": 100}
      """
    Then the request is refused as an invalid field "/source"
    And the request is refused as an invalid field "/merchant"

  @assumed @profile-refusals
  Scenario: an unknown path is refused as not found with the envelope
    When I GET "/no_such_collection"
    Then the request is refused as not found

  @assumed @profile-refusals
  Scenario: a known path with an unsupported method is refused as method not allowed
    When I DELETE "/transfers"
    Then the request is refused as method not allowed

  @assumed @profile-refusals
  Scenario: a body over one mebibyte is refused as too large
    When I POST "/webhooks" with a body of 1100000 bytes
    Then the request is refused as too large
