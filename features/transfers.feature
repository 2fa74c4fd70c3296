@transfers @spec-4.2
Feature: Sales (transfers)
  The one-step charge flow: a sale authorizes and captures in one call and is returned PENDING.
  Its fee never exceeds its amount, and the sandbox declines or disputes sales by their amount.

  Background:
    Given I am the platform user
    And a card for the buyer

  @spec-2.2 @spec-3.3
  Scenario: a sale is returned pending as a debit of the card
    §3.3: a sale created through the API is returned in PENDING; §2.2: type DEBIT and subtype API on sales.
    When I create a sale of 2500 cents
    Then the request succeeds
    And the response field "id" starts with "TR"
    And the response field "state" is "PENDING"
    And the response field "type" is "DEBIT"
    And the response field "amount" is 2500
    And the response field "currency" is "USD"
    And the response field "fee" is 0
    And the response field "source" is the card id
    And the response field "merchant_identity" is "{fixture:merchant_identity}"
    And the response field "tags.conform_run" is "{run_id}"
    And the response field "_links.self.href" is an absolute URL
    And the response field "subtype" is "API"
    And the link "self" names the response field "id"
    And the link "source" names the response field "source"
    And the response carries the declared content type
    And the response fields "created_at" and "updated_at" are equal (assumed: resource_values)

  @spec-7
  Scenario: a sale whose fee equals its amount is accepted
    §4.2: fee must be <= amount.
    When I create a sale of 1000 cents with a fee of 1000 cents
    Then the request succeeds
    And the response field "fee" is 1000

  @spec-7
  Scenario: a sale whose fee exceeds its amount is refused
    §4.2: fee must be <= amount (§7: a rule a client violates).
    When I create a sale of 1000 cents with a fee of 1001 cents
    Then the request is refused as an invalid field "/fee"

  @assumed @profile-request_rules
  Scenario Outline: a sale <with> is refused, though no sentence of the spec refuses it
    When I POST "/transfers" with the body:
      """
      {"source": "{card}", "merchant": "{fixture:merchant}", "amount": 700, "currency": "USD", <extra>}
      """
    Then the request is refused as an invalid field "<pointer>"

    Examples: amounts are integer cents, tags an object, the body a table
      | with                                 | extra                                            | pointer     |
      | with a negative fee                  | "fee": -1                                        | /fee        |
      | with a tag whose value is a number   | "tags": {"conform_run": "{run_id}", "count": 1}  | /tags/count |
      | with a field its table does not list | "color": "red"                                   | /color      |

  Scenario: a sale without a merchant is refused
    §4.2 body table: merchant required yes.
    When I create a sale of 1000 cents without the field "merchant"
    Then the request is refused as an invalid field "/merchant"

  Scenario: a sale without a source is refused
    §4.2 body table: source required yes.
    When I create a sale of 1000 cents without the field "source"
    Then the request is refused as an invalid field "/source"

  Scenario: a sale without an amount is refused
    §4.2 body table: amount required yes.
    When I create a sale of 1000 cents without the field "amount"
    Then the request is refused as an invalid field "/amount"

  Scenario: a sale without a currency is refused
    §4.2 body table: currency required yes.
    When I create a sale of 1000 cents without the field "currency"
    Then the request is refused as an invalid field "/currency"

  @assumed @profile-decline_trigger_amount @sandbox
  Scenario: a sale of the sandbox's declined amount is declined
    When I create a sale of the sandbox's declined amount
    Then the request is refused as declined
    And the error names the declined resource

  @extension
  Scenario: a sale is fetched by its id
    §2.2: a Transfer carries its id and its amount (integer, cents).
    Given a sale of 1500 cents
    When I fetch the sale
    Then the request succeeds
    And the response field "id" is the sale id
    And the response field "amount" is 1500

  @assumed @profile-idempotency_replay @idempotency
  Scenario: a sale replayed with the same idempotency id returns the original
    When I create a sale of 1000 cents with the idempotency id "sale-replay"
    Then the request succeeds
    When I create a sale of 1000 cents with the idempotency id "sale-replay"
    Then the response repeats the original sale

  @assumed @profile-idempotency_replay @idempotency
  Scenario: a sale idempotency id reused with another amount is refused
    When I create a sale of 1000 cents with the idempotency id "sale-conflict"
    Then the request succeeds
    When I create a sale of 1200 cents with the idempotency id "sale-conflict"
    Then the request is refused as unprocessable

  @spec-2.2
  Scenario: a sale carries the idempotency id it was created with
    §4.2: idempotency_id in the sale's body; §2.2: the Transfer's idempotency_id (§4.1: a client-generated value associated with the request).
    When I create a sale of 1000 cents with the idempotency id "sale-echo"
    Then the request succeeds
    And the response field "idempotency_id" is the idempotency id "sale-echo"

  @assumed @profile-idempotency_replay @idempotency
  Scenario: ten identical sales sent at once with one idempotency id create one sale
    When I create 10 identical sales of 1000 cents at once with the idempotency id "sale-race"
    Then all 10 responses name one and the same sale
    And the response field "idempotency_id" is the idempotency id "sale-race"

  @assumed @profile-idempotency_replay @idempotency @spec-4.1
  Scenario: an idempotency id is scoped to its operation
    When I authorize 1000 cents with the idempotency id "shared-by-operations"
    Then the request succeeds
    When I create a sale of 1200 cents with the idempotency id "shared-by-operations"
    Then the request succeeds
    And the response field "id" starts with "TR"
    And the response field "amount" is 1200
    And the response field "idempotency_id" is the idempotency id "shared-by-operations"

  @assumed @profile-idempotency_replay @idempotency
  Scenario: an idempotency id is scoped to its application
    When I create a sale of 1000 cents with the idempotency id "shared-by-applications"
    Then the request succeeds
    When I am the other application user
    And I create a sale of 1000 cents with the idempotency id "shared-by-applications"
    Then the request is refused
