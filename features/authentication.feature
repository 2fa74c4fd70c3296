@authentication @spec-5
Feature: Authentication, roles and tenancy
  Every request carries HTTP Basic credentials; missing or invalid ones are refused on every endpoint.
  Only ROLE_PLATFORM updates merchant flags, and a user never sees another application's resources.

  Background:
    Given I am the platform user

  Scenario Outline: <operation> refuses a request without credentials and one with a wrong password
    §5 item 4: missing or invalid credentials yield the error "Authentication information is missing or invalid".
    When I call "<operation>" without credentials
    Then the request is refused as unauthenticated
    When I call "<operation>" with a wrong password
    Then the request is refused as unauthenticated

    @spec-7
    Examples: operations the spec names
      | operation                                 |
      | authorizations.create                     |
      | authorizations.capture                    |
      | transfers.create                          |
      | payment_instruments.create                |
      | payment_instruments.get                   |
      | merchants.get                             |
      | merchants.update                          |
      | subscription_amounts.update               |
      | subscription_enrollments.create           |
      | subscription_enrollments.list_by_schedule |
      | subscription_enrollments.list             |
      | subscription_enrollments.get              |
      | subscription_enrollments.update           |
      | subscription_enrollments.delete           |
      | disputes.list                             |
      | disputes.get                              |
      | dispute_evidence.create                   |
      | dispute_evidence.list                     |
      | dispute_evidence.get                      |
      | dispute_adjustment_transfers.list         |
      | balance_transfers.get                     |
      | files.create                              |
      | files.list                                |
      | files.get                                 |
      | files.upload                              |
      | files.download                            |
      | files.external_links.create               |
      | files.external_links.list                 |
      | files.external_links.get                  |
      | webhooks.create                           |
      | webhooks.list                             |
      | webhooks.get                              |
      | webhooks.update                           |

    @extension @assumed @profile-extensions
    Examples: operations the reference adds
      | operation                     |
      | authorizations.get            |
      | transfers.get                 |
      | subscription_schedules.create |
      | subscription_schedules.get    |
      | subscription_amounts.create   |
      | subscription_amounts.get      |
      | balance_transfers.create      |
      | balance_transfers.list        |

  Scenario Outline: a user of another application cannot see my <resource> (<operation>)
    Invariant tenancy: a user never sees or changes another application's resources.
    Given my application has a <resource>
    When the other application user calls "<operation>"
    Then the request is refused as not found

    Examples:
      | resource         | operation                         |
      | card             | payment_instruments.get           |
      | authorization    | authorizations.capture            |
      | merchant         | merchants.get                     |
      | enrollment       | subscription_enrollments.get      |
      | dispute          | disputes.get                      |
      | dispute          | dispute_evidence.list             |
      | dispute          | dispute_adjustment_transfers.list |
      | balance transfer | balance_transfers.get             |
      | file             | files.get                         |
      | file             | files.external_links.list         |
      | webhook          | webhooks.get                      |

    @extension
    Examples: through operations the reference adds
      | resource      | operation          |
      | authorization | authorizations.get |
      | sale          | transfers.get      |

  Scenario: a user of another application does not find my sale in its dispute list
    Invariant tenancy: a user never sees or changes another application's resources.
    Given a card for the buyer
    And a sale of the sandbox's dispute amount
    And the dispute opened on the sale appears in the dispute list
    When the other application user calls "disputes.list"
    Then the request succeeds
    And the list does not contain the dispute

  @assumed @profile-operation_roles
  Scenario: the merchant user may read the merchant it belongs to
    Given the profile lets the merchant user call "merchants.get"
    And I am the merchant user
    When I fetch the merchant
    Then the request succeeds
    And the response field "id" is "{fixture:merchant}"

  @assumed @profile-operation_roles
  Scenario: the merchant user may charge a card
    Given the profile lets the merchant user call "payment_instruments.create"
    And the profile lets the merchant user call "transfers.create"
    And I am the merchant user
    And a card for the buyer
    When I create a sale of 1300 cents
    Then the request succeeds
    And the response field "state" is "PENDING"

  @merchants @spec-4.4
  Scenario: a merchant user may not update merchant flags and the flag is unchanged
    §4.4: only credentials with role ROLE_PLATFORM may update a Merchant's flags.
    Given I am the merchant user
    When I set Level 2/3 processing to false on the merchant
    Then the request is refused as forbidden
    And the merchant still has Level 2/3 processing true

  Scenario: the platform user is authenticated with its own credentials
    §5 item 1: every request carries HTTP Basic credentials: a user id (prefix US) as username and a secret as password.
    When I call "webhooks.list"
    Then the request succeeds
