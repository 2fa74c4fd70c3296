@merchants @spec-4.4
Feature: Merchants
  Merchants are fetched by id and their Level 2/3 flag is updated by ROLE_PLATFORM users only.
  The processor's api_key is a credential and is never returned in clear.

  Background:
    Given I am the platform user

  @spec-2.4
  Scenario: a merchant is fetched with its processor api key masked
    §2.4: api_key is a credential, returned as <API_KEY> (invariant secrets: never the key).
    When I fetch the merchant
    Then the request succeeds
    And the response field "id" is "{fixture:merchant}"
    And the response field "identity" is "{fixture:merchant_identity}"
    And the response never shows the processor api key in clear
    And the response field "level_two_level_three_data_enabled" is true
    And the response field "_links.self.href" is an absolute URL

  Scenario: the platform user updates a merchant's Level 2/3 flag
    §4.4: level_two_level_three_data_enabled true enables Level 2/Level 3 processing.
    When I set Level 2/3 processing to true on the merchant
    Then the request succeeds
    And the response field "id" is "{fixture:merchant}"
    And the response field "level_two_level_three_data_enabled" is true
    And the response never shows the processor api key in clear

  Scenario: fetching a merchant that does not exist is refused as not found
    §7: Object does not exist, on fetch, update and delete by id.
    When I fetch a merchant that does not exist
    Then the request is refused as not found

  Scenario: updating a merchant that does not exist is refused as not found
    §7: Object does not exist, on fetch, update and delete by id.
    When I set Level 2/3 processing to true on a merchant that does not exist
    Then the request is refused as not found

  @spec-5
  Scenario: a merchant user may not enable merchant flags either
    §4.4, §5 item 3: updating a Merchant's flags requires credentials with role ROLE_PLATFORM.
    Given I am the merchant user
    When I set Level 2/3 processing to true on the merchant
    Then the request is refused as forbidden
    And the merchant still has Level 2/3 processing true
