@balance_transfers @spec-4.7
Feature: Balance transfers
  Balance transfers move funds between the platform's accounts and are fetched by id.
  Creating and listing them are extensions of the reference, not operations the spec names.

  Background:
    Given I am the platform user

  @spec-2.9
  Scenario: a balance transfer is fetched by its id
    §4.7: GET /balance_transfers/:BALANCE_TRANSFER_ID fetches a Balance Transfer; §2: its id is BT_<id>.
    When I fetch the balance transfer
    Then the request succeeds
    And the response field "id" starts with "BT_"
    And the response field "id" is "{fixture:balance_transfer}"
    And the response field "_links.self.href" is an absolute URL
    And the response field "source" is "OPERATING_ACCOUNT" (assumed: resource_values)
    And the response field "destination" is "FOR_BENEFIT_OF_ACCOUNT" (assumed: resource_values)

  Scenario: fetching a balance transfer that does not exist is refused as not found
    §7: Object does not exist, on fetch, update and delete by id.
    When I fetch a balance transfer that does not exist
    Then the request is refused as not found

  @extension
  Scenario: a balance transfer is created, fetched and listed
    §4.7: GET /balance_transfers/:BALANCE_TRANSFER_ID fetches a Balance Transfer; §2.9: amount is integer cents.
    When I create a balance transfer of 5000 cents
    Then the request succeeds
    And the response field "amount" is 5000
    When I fetch the balance transfer
    Then the request succeeds
    And the response field "id" is the balance transfer id
    When I list the balance transfers
    Then the request succeeds
    And the list contains the balance transfer

  @extension @assumed @profile-operation_roles
  Scenario: a merchant user may not create a balance transfer
    Given I am the merchant user
    When I create a balance transfer of 5000 cents
    Then the request is refused as forbidden
