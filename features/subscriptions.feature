@subscriptions @spec-4.5
Feature: Subscription amounts and enrollments
  Updating a subscription amount creates a new amount, which cannot itself be updated again.
  Merchants are enrolled into schedules; enrollments are listed, fetched, updated and deleted.

  Background:
    Given I am the platform user

  @spec-3.2
  Scenario: updating a subscription amount returns a new amount with a new id
    §3.2: updating a Subscription Amount creates a new one with a new id; the response is the new resource.
    Given a fresh subscription amount
    When I update the subscription amount to 900 cents
    Then the request succeeds
    And the response is a new subscription amount
    And the response field "id" starts with "SUBAMOUNT_"
    And the response field "fee_amount_data.amount" is 900
    And the response field "amount_type" is "FEE"

  @spec-2.5
  Scenario: the new subscription amount keeps the schedule and the fields sent
    §4.5: the response is the new Subscription Amount object (§2.5: subscription_schedule, nickname, fee_amount_data, created_by a User id).
    Given a fresh subscription amount
    When I update the subscription amount to 900 cents
    Then the request succeeds
    And the response field "subscription_schedule" is the schedule id
    And the response field "nickname" is "conform amount"
    And the response field "fee_amount_data.currency" is "USD"
    And the response field "fee_amount_data.label" is "conform fee"
    And the response field "created_by" starts with "US"
    And the link "self" names the response field "id"
    And the link "schedule" names the response field "subscription_schedule"

  @spec-3.2 @spec-7
  Scenario: an amount produced by an update cannot be updated again
    §3.2: the updated Subscription Amount cannot itself be updated more than once; §7.
    Given a fresh subscription amount
    When I update the subscription amount to 900 cents
    Then the request succeeds
    And the response is a new subscription amount
    When I update the updated subscription amount to 1200 cents
    Then the request is refused as unprocessable

  @assumed @profile-reference_rules
  Scenario: an amount that was already updated cannot be updated a second time
    Given a fresh subscription amount
    When I update the subscription amount to 900 cents
    Then the request succeeds
    When I update the subscription amount to 1000 cents
    Then the request is refused as unprocessable

  Scenario: updating a subscription amount that does not exist is refused as not found
    §7: Object does not exist, on fetch, update and delete by id.
    Given a subscription schedule
    When I update a subscription amount that does not exist
    Then the request is refused as not found

  @spec-2.6
  Scenario: a merchant is enrolled into a schedule
    §4.5: POST creates an enrollment under a schedule (merchant, nickname, started_at, tags); §2.6: the Subscription Enrollment.
    Given a subscription schedule
    When I enroll the merchant in the schedule
    Then the request succeeds
    And the response field "id" starts with "SUBENROLLMENT_"
    And the response field "merchant" is "{fixture:merchant}"
    And the response field "subscription_schedule" is the schedule id
    And the response field "nickname" is "conform enrollment"
    And the response field "tags.conform_run" is "{run_id}"
    And the response field "_links.self.href" is an absolute URL
    And the link "self" names the response field "id"
    And the link "merchant" names the response field "merchant"

  @assumed @profile-request_rules
  Scenario: an enrollment without a merchant is refused
    Given a subscription schedule
    When I enroll nobody in the schedule
    Then the request is refused as an invalid field "/merchant"

  Scenario: an enrollment is fetched by its id
    §4.5: GET /subscription/subscription_enrollments/:SUBSCRIPTION_ENROLLMENT_ID fetches one enrollment.
    Given an enrollment of the merchant
    When I fetch the enrollment
    Then the request succeeds
    And the response field "id" is the enrollment id
    And the response field "merchant" is "{fixture:merchant}"

  Scenario: an enrollment is updated
    §4.5: PUT /subscription/subscription_enrollments/:id updates an enrollment; the response is the Subscription Enrollment object.
    Given an enrollment of the merchant
    When I rename the enrollment to "conform renamed"
    Then the request succeeds
    And the response field "id" is the enrollment id
    And the response field "nickname" is "conform renamed" (assumed: resource_values)
    When I fetch the enrollment
    Then the request succeeds
    And the response field "nickname" is "conform renamed" (assumed: resource_values)

  Scenario: a deleted enrollment is no longer found
    §4.5: DELETE removes an enrollment, the response has no body; §7: Object does not exist.
    Given an enrollment of the merchant
    When I delete the enrollment
    Then the request succeeds
    And the response has no body
    When I fetch the enrollment
    Then the request is refused as not found

  Scenario: the enrollments of a schedule are listed
    §4.5: GET /subscription/subscription_schedules/:id/subscription_enrollments lists the enrollments of a schedule.
    Given an enrollment of the merchant
    When I list the enrollments of the schedule
    Then the request succeeds
    And the list contains the enrollment

  Scenario: all enrollments are listed
    §4.5: GET /subscription/subscription_enrollments lists all enrollments.
    Given an enrollment of the merchant
    When I list all enrollments
    Then the request succeeds
    And the list holds at least 1 item

  @spec-2.12 @spec-4.10 @lists
  Scenario: the enrollment list honours its limit and counts every enrollment
    §2.12: page with offset, limit, count (the total number of records); §4.10: lists use offset, limit and sort.
    Given an enrollment of the merchant
    And an enrollment of the merchant
    When I list all enrollments with "limit=1"
    Then the request succeeds
    And the list holds 1 items
    And the page limit is 1
    And the page offset is 0
    And the page count is at least 2

  Scenario Outline: an enrollment that does not exist cannot be <done>
    §7: Object does not exist, on fetch, update and delete by id.
    When I <action> an enrollment that does not exist
    Then the request is refused as not found

    Examples:
      | action | done    |
      | fetch  | fetched |
      | rename | renamed |
      | delete | deleted |

  @extension
  Scenario: a subscription schedule is created and fetched
    §2: a Subscription Schedule's id is SUBSCHEDULE_<id>.
    When I create a subscription schedule
    Then the request succeeds
    And the response field "id" starts with "SUBSCHEDULE_"
    When I fetch the subscription schedule
    Then the request succeeds
    And the response field "id" is the schedule id

  @extension
  Scenario: a subscription amount is created on a schedule and fetched
    §2.5: fee_amount_data.amount: integer, positive, cents, the recurring charge.
    Given a subscription schedule
    When I create a subscription amount of 700 cents on the schedule
    Then the request succeeds
    And the response field "fee_amount_data.amount" is 700
    When I fetch the subscription amount
    Then the request succeeds
    And the response field "id" is the amount id
