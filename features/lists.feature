@lists @spec-2.12 @spec-4.10
Feature: Lists and pagination
  Lists return their items under _embedded with a page of offset, limit and the total count.
  The default page holds 20 items, newest first; offset and limit are honoured and echoed in the self link.

  Background:
    Given I am the platform user
    And a file with 21 upload links

  @spec-8
  Scenario: a list returns 20 items by default and counts the total
    §2.12: count is the total number of records; default limit is 20 (§8).
    When I list the upload links of the file
    Then the request succeeds
    And the list holds 20 items
    And the page limit is 20
    And the page offset is 0
    And the page count is 21

  Scenario: the default order is created_at then id, newest first
    §2.12: the default order is created_at,desc then id,desc.
    When I list the upload links of the file with "limit=100"
    Then the request succeeds
    And the list holds 21 items
    And the items are ordered by created_at then id, newest first

  Scenario: an explicit sort orders the list oldest first and is echoed in the self link
    §2.12: the self link carries repeated sort values of the form <field>,<asc|desc>; §4.10: lists use offset, limit and sort.
    When I list the upload links of the file with "limit=100&sort=created_at,asc&sort=id,asc"
    Then the request succeeds
    And the list holds 21 items
    And the items are ordered by created_at then id, oldest first
    And the self link carries "sort=created_at,asc"

  Scenario: offset and limit select a window of the list
    §4.10: lists use offset, limit and sort; §2.12: page with offset, limit, count, the total number of records.
    When I list the upload links of the file with "limit=100"
    And I remember the items
    And I list the upload links of the file with "offset=5&limit=5"
    Then the request succeeds
    And the list holds 5 items
    And the items are items 5 to 10 of the remembered items
    And the page offset is 5
    And the page limit is 5
    And the page count is 21

  Scenario: the last page holds the remainder
    §4.10: lists use offset, limit and sort; §2.12: count is the total number of records.
    When I list the upload links of the file with "offset=20&limit=20"
    Then the request succeeds
    And the list holds 1 items
    And the page count is 21

  Scenario: the self link carries offset, limit and sort
    §2.12: the list self link carries offset, limit and repeated sort values.
    When I list the upload links of the file with "offset=2&limit=3"
    Then the request succeeds
    And the response field "_links.self.href" is an absolute URL
    And the self link carries "offset=2"
    And the self link carries "limit=3"
    And the self link carries "sort"

  @assumed @profile-list_over_max
  Scenario: a limit over the maximum is refused or clamped as declared
    When I list the upload links of the file with a limit over the declared maximum
    Then the limit over the maximum is handled as the profile declares
