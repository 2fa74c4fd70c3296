@authorizations @spec-4.1
Feature: Authorizations and captures
  The two-step charge flow: authorize a card for a merchant, then capture the authorization.
  A capture never exceeds the authorized amount, its fee never exceeds the capture, and it happens once.

  Background:
    Given I am the platform user
    And a card for the buyer

  @spec-2.1
  Scenario: an authorization is created succeeded and not yet captured
    §2.1: Authorization: amount in cents, transfer null until captured, _links self and merchant_identity; transfer present after capture.
    When I authorize 1000 cents
    Then the request succeeds
    And the response field "id" starts with "AU"
    And the response field "amount" is 1000
    And the response field "currency" is "USD"
    And the response field "state" is "SUCCEEDED" (assumed: resource_values)
    And the response field "transfer" is null
    And the response field "source" is the card id
    And the response field "merchant_identity" is "{fixture:merchant_identity}"
    And the response field "is_void" is false
    And the response field "tags.conform_run" is "{run_id}"
    And the response field "_links.self.href" is an absolute URL
    And the response field "_links.merchant_identity.href" is an absolute URL
    And the response field "_links.transfer" is absent
    And the link "self" names the response field "id"
    And the link "merchant_identity" names the response field "merchant_identity"
    And the authorization expires as the profile declares

  @assumed @profile-authorization_merchant_field
  Scenario: an authorization may name the merchant by its merchant id instead of its identity
    When I authorize 1000 cents naming the merchant by its merchant id
    Then the request succeeds
    And the response field "merchant_identity" is "{fixture:merchant_identity}"

  Scenario: an authorization without an amount is refused
    §4.1 body table: amount required yes.
    When I authorize 1000 cents without the field "amount"
    Then the request is refused as an invalid field "/amount"

  Scenario: an authorization without a source is refused
    §4.1 body table: source required yes.
    When I authorize 1000 cents without the field "source"
    Then the request is refused as an invalid field "/source"

  Scenario: an authorization without a currency is refused
    §4.1 body table: currency required yes.
    When I authorize 1000 cents without the field "currency"
    Then the request is refused as an invalid field "/currency"

  Scenario: an authorization that names no merchant is refused
    §4.1 body table: merchant_identity required yes (the request example names it merchant).
    When I authorize 1000 cents naming no merchant
    Then the request is refused as an invalid field naming the merchant

  @spec-3.3
  Scenario: a capture sets the state, the transfer and the transfer link
    §3.3: a capture returns the Authorization with state SUCCEEDED and transfer set to the Transfer id; §2.1: _links.transfer present after capture.
    Given an authorization of 1000 cents
    When I capture 1000 cents
    Then the request succeeds
    And the response field "state" is "SUCCEEDED"
    And the response field "transfer" starts with "TR"
    And the response field "_links.transfer.href" is an absolute URL
    And the link "transfer" names the response field "transfer"
    And the response field "amount" is 1000

  Scenario: a partial capture below the authorized amount is accepted
    §4.1: capture_amount must be <= the Authorization amount.
    Given an authorization of 1000 cents
    When I capture 400 cents
    Then the request succeeds
    And the response field "transfer" starts with "TR"

  @spec-7
  Scenario: a capture over the authorized amount is refused and changes nothing
    §4.1: capture_amount must be <= the Authorization amount (§7: a rule a client violates).
    Given an authorization of 1000 cents
    When I capture 1001 cents
    Then the request is refused as an invalid field "/capture_amount"
    And the authorization is still uncaptured
    When I capture 1000 cents
    Then the request succeeds

  Scenario: a capture without a capture amount is refused and changes nothing
    §4.1 capture body table: capture_amount required yes.
    Given an authorization of 1000 cents
    When I capture the authorization without a capture amount
    Then the request is refused as an invalid field "/capture_amount"
    And the authorization is still uncaptured

  Scenario: a capture whose fee exceeds the captured amount but not the authorized one is handled as declared
    §4.1: fee must be <= the amount (the captured or the authorized one: which, the profile declares).
    Given an authorization of 1000 cents
    When I capture 500 cents with a fee of 501 cents
    Then the capture whose fee exceeds the captured amount is handled as the profile declares

  @spec-7
  Scenario: a capture whose fee exceeds the authorized amount is refused and changes nothing
    §4.1: fee must be <= the amount (the authorization's, under either reading).
    Given an authorization of 1000 cents
    When I capture 1000 cents with a fee of 1001 cents
    Then the request is refused as an invalid field "/fee"
    And the authorization is still uncaptured

  @spec-7
  Scenario: a capture whose fee equals the captured amount is accepted
    §4.1: fee must be <= the amount.
    Given an authorization of 1000 cents
    When I capture 500 cents with a fee of 500 cents
    Then the request succeeds
    And the response field "state" is "SUCCEEDED"

  @spec-7
  Scenario: a capture of exactly the authorized amount is accepted
    §4.1: capture_amount must be <= the Authorization amount.
    Given an authorization of 1000 cents
    When I capture 1000 cents with a fee of 0 cents
    Then the request succeeds

  Scenario: a second capture within the authorized amount is handled as declared
    §4.1: capture_amount must be <= the Authorization amount (whether a second capture is taken, the profile declares).
    Given an authorization of 1000 cents
    When I capture 600 cents
    Then the request succeeds
    When I capture 400 cents
    Then the second capture within the amount is handled as the profile declares

  Scenario: captures never total more than the authorized amount
    Invariant capture_total: the total captured on an authorization never exceeds its amount.
    Given an authorization of 1000 cents
    When I capture 600 cents
    Then the request succeeds
    When I capture 600 cents
    Then the request is refused

  @spec-7
  Scenario: capturing an authorization that does not exist is refused as not found
    §7: Object does not exist, on fetch, update and delete by id (a capture is PUT /authorizations/:AUTHORIZATION_ID).
    When I capture an authorization that does not exist
    Then the request is refused as not found

  @extension @assumed @profile-extensions
  Scenario: a capture creates a debit transfer of the captured amount
    Given an authorization of 1000 cents
    When I capture 700 cents
    Then the request succeeds
    When I fetch the transfer of the capture
    Then the request succeeds
    And the response field "id" is the capture transfer id
    And the response field "type" is "DEBIT"
    And the response field "amount" is 700

  @extension
  Scenario: a captured authorization is fetched with its transfer
    §2.1: transfer null until captured, set to the Transfer id after capture.
    Given an authorization of 1000 cents
    When I capture 1000 cents
    And I fetch the authorization
    Then the request succeeds
    And the response field "transfer" starts with "TR"
    And the response field "_links.transfer.href" is an absolute URL

  @assumed @profile-decline_trigger_amount @sandbox
  Scenario: an authorization of the sandbox's declined amount is declined
    When I authorize the sandbox's declined amount
    Then the request is refused as declined
    And the error names the declined resource

  @assumed @profile-idempotency_replay @idempotency
  Scenario: an authorization replayed with the same idempotency id returns the original
    When I authorize 1000 cents with the idempotency id "auth-replay"
    Then the request succeeds
    When I authorize 1000 cents with the idempotency id "auth-replay"
    Then the response repeats the original authorization

  @assumed @profile-idempotency_replay @idempotency
  Scenario: an idempotency id reused with another body is refused
    When I authorize 1000 cents with the idempotency id "auth-conflict"
    Then the request succeeds
    When I authorize 2000 cents with the idempotency id "auth-conflict"
    Then the request is refused as unprocessable
