class Solution {
    static Integer secondLargest(int[] nums) {
        Integer largest = null, second = null;
        for (int n : nums) {
            if (largest == null || n > largest) { second = largest; largest = n; }
            else if (n != largest && (second == null || n > second)) { second = n; }
        }
        return second;
    }
}
