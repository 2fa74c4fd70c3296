@webhooks @spec-4.9
Feature: Webhooks
  Webhooks subscribe an HTTP(S) URL of at most 120 characters to event notifications.
  They are enabled by default, can be disabled and updated, and only single responses carry the secret.

  Background:
    Given I am the platform user

  @spec-2.10
  Scenario: a webhook is created enabled with its signing secret
    §2.10: enabled default true on creation; §4.9: the create response is the Webhook object including secret_signing_key.
    When I create a webhook pointing at the kit's receiver
    Then the request succeeds
    And the response field "id" starts with "WH"
    And the response field "url" is "{hook_url}"
    And the response field "enabled" is true
    And the response field "secret_signing_key" is present
    And the response field "_links.application.href" is an absolute URL
    And the response field "authentication.type" is "NONE" (assumed: resource_values)

  @spec-8
  Scenario: a webhook url of 120 characters is accepted and one of 121 is refused
    §2.10, §8: url at most 120 characters.
    When I create a webhook whose url is 120 characters long
    Then the request succeeds
    When I create a webhook whose url is 121 characters long
    Then the request is refused as an invalid field "/url"

  Scenario Outline: a webhook url that is not an HTTP or HTTPS URL is refused (<url>)
    §4.9, §2.10: url: HTTP or HTTPS URL; §7: Invalid field, on create Webhook.
    When I create a webhook with the url "<url>"
    Then the request is refused as an invalid field "/url"

    Examples:
      | url                          |
      | ftp://example.com/hooks      |
      | example.com/hooks            |
      | mailto:hooks@example.com     |

  Scenario: a webhook without a url is refused
    §4.9: url required yes on create; §7: Invalid field, on create Webhook.
    When I create a webhook without a url
    Then the request is refused as an invalid field "/url"

  Scenario: a webhook is disabled
    §2.10: enabled false disables.
    Given a webhook pointing at the kit's receiver
    When I disable the webhook
    Then the request succeeds
    And the response field "enabled" is false
    When I fetch the webhook
    Then the request succeeds
    And the response field "enabled" is false

  Scenario: a webhook's url is updated
    §4.9: Update a Webhook: same body fields, all optional; response: Webhook object.
    Given a webhook pointing at the kit's receiver
    When I point the webhook at a new path of the kit's receiver
    Then the request succeeds
    And the response field "url" is "{hook_url}/moved"
    And the response field "enabled" is true

  @spec-8
  Scenario: a webhook update to a url over 120 characters is refused and changes nothing
    §4.9, §8: Webhook url max 120 characters; the update takes the same body fields (Invariant refusal_changes_nothing).
    Given a webhook pointing at the kit's receiver
    When I set the webhook's url to one 121 characters long
    Then the request is refused as an invalid field "/url"
    When I fetch the webhook
    Then the response field "url" is "{hook_url}"

  Scenario: a webhook is fetched with its signing secret
    §4.9: GET /webhooks/:id fetches a Webhook, its response including secret_signing_key.
    Given a webhook pointing at the kit's receiver
    When I fetch the webhook
    Then the request succeeds
    And the response field "id" is the webhook id
    And the response field "secret_signing_key" is present

  Scenario: webhooks are listed without their signing secrets
    §2.10: secret_signing_key is returned in single-webhook responses; list items also carry self.
    Given a webhook pointing at the kit's receiver
    When I list the webhooks
    Then the request succeeds
    And the list contains the webhook
    And no item has the field "secret_signing_key"
    And every item has "_links.self.href" present

  @spec-2.12 @spec-4.10 @lists
  Scenario: the webhook list honours its limit and counts every webhook
    §2.12: page with offset, limit, count (the total number of records); the self link carries limit; §4.10.
    Given a webhook pointing at the kit's receiver
    And a webhook pointing at the kit's receiver
    When I list the webhooks with "limit=1"
    Then the request succeeds
    And the list holds 1 items
    And the page limit is 1
    And the page count is at least 2
    And the self link carries "limit=1"

  Scenario: fetching a webhook that does not exist is refused as not found
    §7: Object does not exist, on fetch, update and delete by id.
    When I fetch a webhook that does not exist
    Then the request is refused as not found

  Scenario: updating a webhook that does not exist is refused as not found
    §7: Object does not exist, on fetch, update and delete by id.
    When I disable a webhook that does not exist
    Then the request is refused as not found

  @assumed @profile-resource_events @spec-6
  Scenario: a webhook receives a signed created event when a sale is made
    Given a webhook pointing at the kit's receiver
    And a card for the buyer
    When I create a sale of 1400 cents
    Then the request succeeds
    And the kit's receiver gets the "created" event of the sale

  @spec-6
  Scenario: a disabled webhook receives no events
    §2.10: enabled false disables; §6: events go to enabled webhooks.
    Given a card for the buyer
    And a control webhook pointing at the kit's receiver
    And a webhook pointing at the kit's receiver
    When I disable the webhook
    Then the request succeeds
    When I create a sale of 1400 cents
    Then the request succeeds
    And the webhook gets neither the sale's event nor a later marker sale's, while the control webhook gets both

  @assumed @profile-resource_events @spec-6
  Scenario: a webhook enabled only for authorization events receives no sale event
    Given a card for the buyer
    And a control webhook pointing at the kit's receiver
    And a webhook pointing at the kit's receiver enabled only for "authorization" events
    When I create a sale of 1400 cents
    Then the request succeeds
    And the webhook gets neither the sale's event nor a later marker sale's, while the control webhook gets both

  @assumed @profile-resource_events @spec-6
  Scenario: a webhook enabled only for authorization events receives them
    Given a card for the buyer
    And a webhook pointing at the kit's receiver enabled only for "authorization" events
    When I authorize 1000 cents
    Then the request succeeds
    And the kit's receiver gets the "created" event of the authorization

  @assumed @profile-resource_events @spec-6
  Scenario: a webhook with basic authentication receives events with that Authorization header and never shows its password
    Given a webhook pointing at the kit's receiver with basic authentication
    Then the response field "authentication.type" is "BASIC"
    And the response field "authentication.basic.username" is "conform-hook"
    And the response never shows the webhook's password
    When I fetch the webhook
    Then the request succeeds
    And the response never shows the webhook's password
    When I list the webhooks
    Then the request succeeds
    And the response never shows the webhook's password
    Given a card for the buyer
    When I create a sale of 1400 cents
    Then the request succeeds
    And the kit's receiver gets the "created" event of the sale with the webhook's basic Authorization header
