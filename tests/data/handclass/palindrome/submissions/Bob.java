public class Palindrome {
    public static boolean isPalindrome(String text) {
        return text.charAt(0) == text.charAt(text.length() - 1);
    }
}
