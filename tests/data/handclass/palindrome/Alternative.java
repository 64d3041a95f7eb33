public class Palindrome {
    public static boolean isPalindrome(String text) {
        String reversed = new StringBuilder(text).reverse().toString();
        return reversed.equals(text);
    }
}
